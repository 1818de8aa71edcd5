"use client";

import { Bell } from "lucide-react";
import { channelWords, stepWords, type Notified } from "@/lib/notifications/notification-schemas";
import { Time } from "../ui/time";

/** Who has been told about a request: "Rita by email, when it was asked, 14:02; Max by email, passed on to the managers, 14:17". */
export function NotifiedLine({ notified }: { notified: readonly Notified[] | undefined }) {
  const shown = (notified ?? []).filter((n) => n.status !== "dropped");
  if (shown.length === 0) return null;
  return (
    <div className="flex gap-1.5 text-xs text-slate-600" data-testid="approval-notified">
      <Bell aria-hidden className="mt-0.5 size-3.5 shrink-0" />
      <p>
        <span className="font-medium text-slate-700">Told: </span>
        {shown.map((n, i) => (
          <span key={`${n.userId}-${n.channel}-${n.step}`}>
            {i > 0 ? "; " : ""}
            {n.name} {channelWords[n.channel]}, {stepWords[n.step]}
            {n.status === "sent" ? (
              <>
                , <Time at={n.at} />
              </>
            ) : n.status === "failed" ? (
              <span className="text-rose-700"> (not sent: {n.error ?? "the channel refused it"})</span>
            ) : n.error ? (
              <span className="text-amber-800"> (trying again: {n.error})</span>
            ) : (
              " (waiting for their quiet hours or digest)"
            )}
          </span>
        ))}
      </p>
    </div>
  );
}
