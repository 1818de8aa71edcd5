"use client";

import { Keyboard } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Dialog, DialogContent, DialogTrigger } from "../ui/dialog";

export const inboxKeys = [
  { key: "j", does: "next card" },
  { key: "k", does: "previous card" },
  { key: "a", does: "approve" },
  { key: "r", does: "reject (asks for a reason)" },
  { key: "e", does: "edit, then approve" },
  { key: "o", does: "open the conversation" },
  { key: "x", does: "select, to decide several at once" },
  { key: "?", does: "show these keys" },
] as const;

/** The card actions a key presses: the same buttons a pointer would, so disabled stays disabled. */
const actionOfKey: Record<string, string> = { a: "approve", r: "reject", e: "edit", o: "open" };

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/**
 * What takes the focus for a request: its line in the list when the list shows lines (a wide screen), else its card.
 */
export function focusTarget(item: HTMLElement): HTMLElement | null {
  const row = item.querySelector<HTMLElement>("[data-approval-row]");
  if (row && row.offsetParent !== null) return row;
  return item.querySelector<HTMLElement>("article[data-approval]");
}

/**
 * Keyboard triage over the requests in `list`: j/k move the selection, a/r/e/o
 * press that card's button, ? opens the list of keys. Keys are ignored while
 * typing (a reason, an edited input) and while a dialog is open.
 */
export function useInboxKeys(list: React.RefObject<HTMLElement | null>, ids: readonly string[], onSelect?: (id: string | null) => void, onPick?: (id: string) => void) {
  // The selection follows its card, so a card taken away above it does not move it; when its own card goes, the
  // card now at the same place is selected.
  const [selection, setSelection] = useState<{ id: string | null; index: number }>({ id: null, index: 0 });
  const [help, setHelp] = useState(false);
  const found = selection.id === null ? -1 : ids.indexOf(selection.id);
  const index = ids.length === 0 ? -1 : found >= 0 ? found : Math.min(selection.index, ids.length - 1);
  const selected = index;
  const select = useCallback(
    (i: number) => {
      setSelection({ id: ids[i] ?? null, index: i });
      onSelect?.(ids[i] ?? null);
    },
    [ids, onSelect],
  );

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (event.metaKey || event.ctrlKey || event.altKey || typingIn(event.target)) return;
      if (document.querySelector("[role=dialog],[role=alertdialog]")) return;
      if (event.key === "?") {
        event.preventDefault();
        setHelp(true);
        return;
      }
      const items = [...(list.current?.querySelectorAll<HTMLElement>("li[data-item-id]") ?? [])];
      if (items.length === 0) return;
      const current = Math.min(selected, items.length - 1);
      if (event.key === "j" || event.key === "k") {
        event.preventDefault();
        const next = Math.max(0, Math.min(items.length - 1, current + (event.key === "j" ? 1 : -1)));
        select(next);
        const target = focusTarget(items[next]!);
        target?.focus();
        target?.scrollIntoView({ block: "nearest" });
        return;
      }
      if (event.key === "x" && onPick) {
        const id = items[current]!.dataset.itemId;
        if (id) {
          event.preventDefault();
          onPick(id);
        }
        return;
      }
      const action = actionOfKey[event.key];
      if (!action) return;
      const target = items[current]!.querySelector<HTMLElement>(`article[data-approval] [data-action="${action}"]`);
      if (target && !(target as HTMLButtonElement).disabled) {
        event.preventDefault();
        target.click();
      }
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [list, selected, select, onPick]);

  return { selected: index, selectedId: index >= 0 ? (ids[index] ?? null) : null, select, help, setHelp };
}

export function InboxKeysHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className="btn-secondary px-2 py-1 text-xs" aria-label="Keys: keyboard shortcuts">
        <Keyboard aria-hidden className="size-4" />
        <span className="hidden sm:inline">Keys</span>
      </DialogTrigger>
      <DialogContent title="Keyboard shortcuts" description="In the pending list, when you are not typing.">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
          {inboxKeys.map(({ key, does }) => (
            <div key={key} className="contents">
              <dt>
                <kbd className="rounded border border-slate-300 bg-slate-100 px-1.5 font-mono text-xs">{key}</kbd>
              </dt>
              <dd className="text-slate-700">{does}</dd>
            </div>
          ))}
        </dl>
      </DialogContent>
    </Dialog>
  );
}
