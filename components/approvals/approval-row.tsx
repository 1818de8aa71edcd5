"use client";

import type { ApprovalItem } from "@/lib/safety/approval-schemas";
import { cn } from "../ui/cn";
import { Revealed } from "../ui/revealed";
import { categoryLabels, timeLeft, toolLabel } from "./approval-text";
import { PickBox } from "./batch-bar";

/**
 * One pending request on one line, for the list beside the detail pane on a wide screen: the tool, the agent, whom it
 * acts for, its categories and the time left. Pressing it shows the request's card beside the list.
 */
export function ApprovalRow({ item, now, selected, gone, onSelect, picked, onPick }: {
  item: ApprovalItem;
  now: number;
  selected: boolean;
  gone: boolean;
  onSelect: () => void;
  /** Ticked for deciding together with others; no box when the viewer may not decide. */
  picked?: boolean;
  onPick?: () => void;
}) {
  const left = timeLeft(item.expiresAt, now);
  const person = item.onBehalfOf ?? item.requestedBy;
  const categories = [item.category, ...(item.baseCategory && item.baseCategory !== item.category ? [item.baseCategory] : [])];
  const identical = item.identical?.count ?? 1;
  return (
    <div className={cn("hidden items-center xl:flex", selected && "bg-indigo-50 shadow-[inset_3px_0_0_0] shadow-indigo-600")}>
      {onPick ? <PickBox item={item} picked={!!picked} disabled={gone} onPick={onPick} className="ml-3" /> : null}
    <button
      type="button"
      data-approval-row
      aria-current={selected ? "true" : undefined}
      aria-label={`${item.preview.title} by @${item.agent.handle}${person ? ` for ${person}` : ""}, ${left}`}
      onClick={onSelect}
      className={cn(
        "flex w-full min-w-0 items-center gap-2 px-3 py-2 text-left text-xs outline-none hover:bg-slate-50 focus-visible:bg-indigo-50",
        selected && "hover:bg-indigo-50",
        gone && "text-slate-500 line-through decoration-slate-400",
      )}>
      <span aria-hidden className="inline-block size-2 shrink-0 rounded-full" style={{ backgroundColor: item.agent.color }} />
      <span className="flex min-w-0 flex-1 flex-col gap-0.5">
        <span className="flex min-w-0 items-center gap-1.5">
          <span className="truncate text-sm text-slate-900">
            <span className="font-medium">{item.preview.title}</span>
            {/* The first detail tells two requests of the same tool apart: the channel, the address, the command. */}
            {item.preview.fields[0] ? (
              <span className="text-slate-600">
                {" · "}
                <Revealed text={item.preview.fields[0].value} />
              </span>
            ) : null}
          </span>
          {identical > 1 ? <span className="shrink-0 rounded bg-amber-50 px-1 text-amber-800 ring-1 ring-amber-200">×{identical}</span> : null}
        </span>
        <span className="flex min-w-0 items-center gap-1.5 text-slate-600">
          <span className="shrink-0 font-mono">{toolLabel(item)}</span>
          <span className="shrink-0">@{item.agent.handle}</span>
          {person ? <span className="truncate">for {person}</span> : null}
        </span>
      </span>
      <span className="flex shrink-0 flex-col items-end gap-0.5">
        <span className="flex gap-1">
          {categories.map((c) => (
            <span key={c} className={cn("rounded px-1.5 py-0.5 font-medium", c === "tainted_egress" ? "bg-amber-100 text-amber-900" : "bg-indigo-50 text-indigo-700")}>
              {categoryLabels[c] ?? c}
            </span>
          ))}
        </span>
        <span className={cn("font-medium", left === "expired" ? "text-rose-700" : "text-slate-600")}>{gone ? "decided elsewhere" : left}</span>
      </span>
    </button>
    </div>
  );
}
