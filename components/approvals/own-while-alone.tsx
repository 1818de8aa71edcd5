"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { can } from "@/lib/access/capabilities";
import { approvalKeys } from "@/lib/client/query-keys";
import { errorMessage } from "@/lib/errors";
import { cameThroughDoor } from "@/lib/safety/through-door";
import { soloApprovalSchema, type ApprovalItem } from "@/lib/safety/approval-schemas";
import { useApi, useWorkspace } from "../providers";
import { Time } from "../ui/time";
import { toast } from "../ui/toaster";

/** Whether the viewer's own request may be approved by them now: a team of one whose owner turned it on. */
export function useOwnWhileAlone(enabled: boolean) {
  const api = useApi();
  const { slug, role } = useWorkspace();
  return useQuery({
    queryKey: approvalKeys.ownWhileAlone(slug),
    queryFn: () => api("/api/approvals/own-while-alone", { schema: soloApprovalSchema }),
    enabled: enabled && can(role, "approvals.decide"),
  });
}

function useSetOwnWhileAlone() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (on: boolean) => api("/api/approvals/own-while-alone", { method: "PUT", body: { on }, schema: soloApprovalSchema }),
    onSuccess: (state) => {
      queryClient.setQueryData(approvalKeys.ownWhileAlone(slug), state);
      toast.success(state.on ? "You can approve your own requests until a second reviewer joins." : "Your own requests need someone else again.");
    },
    onError: (error) => toast.error(errorMessage(error, "That did not change.")),
  });
}

/** A request that came through a door token: its maker never approves it, alone or not. */
export const throughDoor = (item: Pick<ApprovalItem, "via">) => cameThroughDoor(item.via);

/**
 * Above the inbox, while the only person who may decide is its owner and one of their own requests waits: what four
 * eyes means, and the two ways on (invite a reviewer; or, owners only, approve their own until one joins).
 */
export function TeamOfOneBanner({ items, viewerId }: { items: ApprovalItem[]; viewerId: string }) {
  const { slug, role } = useWorkspace();
  const own = items.some((i) => i.fourEyes && !throughDoor(i) && (i.onBehalfOfUserId ?? i.requestedByUserId) === viewerId);
  const state = useOwnWhileAlone(own);
  const set = useSetOwnWhileAlone();
  const [asking, setAsking] = useState(false);
  if (!own || !state.data?.alone || state.data.on) return null;
  const owner = can(role, "approvals.ownWhileAlone");
  return (
    <section aria-label="A team of one" className="rounded-md border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-950" data-testid="team-of-one">
      <p className="font-medium">You are the only reviewer here, so nobody can approve what your agents ask for on your behalf.</p>
      <p className="mt-1">
        Four eyes: the person an agent acts for can reject its requests but not approve them, so a second person looks before
        anything leaves. Invite a reviewer to decide them{owner ? ", or approve your own until one joins" : ""}.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        {can(role, "members.manage") ? (
          <Link href={`/w/${slug}/settings/members`} className="btn-primary px-3 py-1.5 text-xs">
            Invite a reviewer
          </Link>
        ) : null}
        {owner && !asking ? (
          <button type="button" className="btn-secondary px-3 py-1.5 text-xs" onClick={() => setAsking(true)}>
            Approve my own requests…
          </button>
        ) : null}
      </div>
      {owner && asking ? (
        <div className="mt-3 space-y-2 rounded border border-indigo-200 bg-surface p-3 text-slate-800" role="group" aria-label="Approve my own requests">
          <p>
            Until a second reviewer, manager or owner joins, you approve requests made on your behalf yourself. Each such
            approval is marked on its card and recorded in the audit log. Requests through a door token you made still
            need someone else.
          </p>
          <div className="flex flex-wrap gap-2">
            <button type="button" className="btn-primary px-3 py-1.5 text-xs" disabled={set.isPending} onClick={() => set.mutate(true, { onSuccess: () => setAsking(false) })}>
              Turn it on until a second reviewer joins
            </button>
            <button type="button" className="btn-secondary px-3 py-1.5 text-xs" onClick={() => setAsking(false)}>
              Keep four eyes
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}

/** On a card of the viewer's own request while they may approve it themself: said, with the way to turn it off. */
export function OwnApprovalNote({ state }: { state: { byName: string | null; at: string | null } }) {
  const { role } = useWorkspace();
  const set = useSetOwnWhileAlone();
  return (
    <p className="rounded bg-amber-50 px-2 py-1.5 text-xs text-amber-900 ring-1 ring-amber-200" data-testid="own-while-alone">
      This was asked on your behalf. You may approve it yourself because you are the only reviewer here
      {state.byName ? (
        <>
          {" "}
          (turned on by {state.byName}
          {state.at ? (
            <>
              {" "}
              <Time at={state.at} />
            </>
          ) : null}
          )
        </>
      ) : null}
      ; this ends when a second reviewer joins, and your approval is recorded in the audit log.{" "}
      {can(role, "approvals.ownWhileAlone") ? (
        <button type="button" className="font-medium underline" disabled={set.isPending} onClick={() => set.mutate(false)}>
          Turn it off
        </button>
      ) : null}
    </p>
  );
}
