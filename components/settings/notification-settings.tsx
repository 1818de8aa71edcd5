"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { settingsKeys, agentKeys } from "@/lib/client/query-keys";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import {
  channelWords,
  deliveriesSchema,
  escalationSchema,
  notificationPrefsSchema,
  stepWords,
  type NotificationPrefsReply,
} from "@/lib/notifications/notification-schemas";
import { categoryLabels } from "../approvals/approval-text";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { toast } from "../ui/toaster";
import { Time } from "../ui/time";
import { cn } from "../ui/cn";

type Prefs = Omit<NotificationPrefsReply, "available" | "decides">;
const DIGESTS = [15, 30, 60, 120, 240];

function withoutReplyFields({ available: _available, decides: _decides, ...prefs }: NotificationPrefsReply): Prefs {
  return prefs;
}

/** How the requests a person may decide reach them: channels, cadence, quiet hours, and which requests. */
export function NotificationPrefsForm() {
  const api = useApi();
  const { slug, timeZone, role } = useWorkspace();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingsKeys.notifications(slug), queryFn: () => api("/api/me/notifications", { schema: notificationPrefsSchema }) });
  const agents = useQuery({ queryKey: agentKeys.list(slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });
  // What the person has changed; until then, what is saved.
  const [edited, setDraft] = useState<Prefs | null>(null);
  const draft: Prefs | null = edited ?? (query.data ? withoutReplyFields(query.data) : null);
  const save = useMutation({
    mutationFn: (prefs: Prefs) => api("/api/me/notifications", { method: "PUT", body: prefs, schema: notificationPrefsSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(settingsKeys.notifications(slug), saved);
      setDraft(null);
      toast.success("Your notification choices are saved.");
    },
  });
  const zones = useMemo(() => [...new Set([...Intl.supportedValuesOf("timeZone"), "UTC"])].sort(), []);

  if (query.isError) return <ErrorNotice error={query.error} fallback="Your notification choices could not be loaded." />;
  if (!query.data || !draft) return <p className="card p-4 text-sm text-slate-600">Loading…</p>;
  const { available, decides } = query.data;
  if (!decides) {
    return (
      <section className="card max-w-xl p-4 text-sm text-slate-700" aria-label="Your notifications">
        As a {role}, you do not decide gated agent actions, so no requests are sent to you. Reviewers, managers and owners are told when something waits for
        them.
      </section>
    );
  }
  const set = <K extends keyof Prefs>(key: K, value: Prefs[K]) => setDraft({ ...draft, [key]: value });
  const toggleIn = (list: string[] | null, value: string, on: boolean) => {
    const next = new Set(list ?? []);
    if (on) next.add(value);
    else next.delete(value);
    return [...next];
  };

  return (
    <form
      className="card max-w-2xl space-y-5 p-4"
      aria-label="Your notifications"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(draft);
      }}>
      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">How requests reach you</legend>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-0.5 size-4 accent-indigo-600" checked={draft.email && available.email} disabled={!available.email} onChange={(e) => set("email", e.target.checked)} />
          <span>
            Email
            <span className="block text-xs text-slate-600">
              {available.email
                ? "A message with what the agent wants to do and a link that opens the request. The link decides nothing by itself."
                : "Email is not set up on this server. Whoever runs Clawdeck can configure outgoing mail (see the README)."}
            </span>
          </span>
        </label>
      </fieldset>

      {available.email && draft.email ? (
        <fieldset className="space-y-2">
          <legend className="text-sm font-semibold">How often</legend>
          <label className="flex items-center gap-2 text-sm">
            <input type="radio" name="cadence" className="accent-indigo-600" checked={draft.digestMinutes === null} onChange={() => set("digestMinutes", null)} />
            One email for each request, as it is asked
          </label>
          <label className="flex flex-wrap items-center gap-2 text-sm">
            <input type="radio" name="cadence" className="accent-indigo-600" checked={draft.digestMinutes !== null} onChange={() => set("digestMinutes", draft.digestMinutes ?? 30)} />
            One digest of what arrived, every
            <select
              className="input w-32 py-1"
              aria-label="Digest every"
              value={draft.digestMinutes ?? 30}
              disabled={draft.digestMinutes === null}
              onChange={(e) => set("digestMinutes", Number(e.target.value))}>
              {DIGESTS.map((m) => (
                <option key={m} value={m}>
                  {m < 60 ? `${m} minutes` : `${m / 60} ${m === 60 ? "hour" : "hours"}`}
                </option>
              ))}
            </select>
          </label>
          <p className="text-xs text-slate-600">The last reminder before a request expires is sent on its own, so it is not held for the digest.</p>
        </fieldset>
      ) : null}

      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">Quiet hours</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="size-4 accent-indigo-600"
            checked={draft.quietHours !== null}
            onChange={(e) => set("quietHours", e.target.checked ? { from: "22:00", to: "07:00" } : null)}
          />
          Send nothing at night: what arrives then waits until the quiet hours end
        </label>
        {draft.quietHours ? (
          <div className="flex flex-wrap items-end gap-3 text-sm">
            <label className="space-y-1">
              <span className="label">From</span>
              <input type="time" className="input w-32" value={draft.quietHours.from} onChange={(e) => set("quietHours", { ...draft.quietHours!, from: e.target.value })} required />
            </label>
            <label className="space-y-1">
              <span className="label">To</span>
              <input type="time" className="input w-32" value={draft.quietHours.to} onChange={(e) => set("quietHours", { ...draft.quietHours!, to: e.target.value })} required />
            </label>
            <label className="min-w-52 flex-1 space-y-1">
              <span className="label">In the time zone</span>
              <select className="input" value={draft.timeZone ?? ""} onChange={(e) => set("timeZone", e.target.value || null)}>
                <option value="">The workspace&apos;s ({timeZone})</option>
                {zones.map((z) => (
                  <option key={z} value={z}>
                    {z}
                  </option>
                ))}
              </select>
            </label>
          </div>
        ) : null}
      </fieldset>

      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">Which requests</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="size-4 accent-indigo-600" checked={draft.agents !== null} onChange={(e) => set("agents", e.target.checked ? [] : null)} />
          Only requests of some agents
        </label>
        {draft.agents !== null ? (
          <ul className="flex flex-wrap gap-x-4 gap-y-1 pl-6 text-sm" aria-label="Agents">
            {(agents.data?.agents ?? []).map((a) => (
              <li key={a.id}>
                <label className="flex items-center gap-1.5">
                  <input type="checkbox" className="size-4 accent-indigo-600" checked={draft.agents!.includes(a.id)} onChange={(e) => set("agents", toggleIn(draft.agents, a.id, e.target.checked))} />@
                  {a.handle}
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="size-4 accent-indigo-600" checked={draft.categories !== null} onChange={(e) => set("categories", e.target.checked ? [] : null)} />
          Only some kinds of action
        </label>
        {draft.categories !== null ? (
          <ul className="flex flex-wrap gap-x-4 gap-y-1 pl-6 text-sm" aria-label="Kinds of action">
            {Object.entries(categoryLabels).map(([id, label]) => (
              <li key={id}>
                <label className="flex items-center gap-1.5">
                  <input type="checkbox" className="size-4 accent-indigo-600" checked={draft.categories!.includes(id)} onChange={(e) => set("categories", toggleIn(draft.categories, id, e.target.checked))} />
                  {label}
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        <p className="text-xs text-slate-600">
          {draft.agents === null && draft.categories === null
            ? "Every request you may decide reaches you. Requests asked on your own behalf never do: someone else decides those."
            : "Requests you leave out go to the next people in line (managers, then owners) instead."}
        </p>
      </fieldset>

      {save.isError ? <ErrorNotice error={save.error} fallback="Your choices were not saved." /> : null}
      <button type="submit" className="btn-primary" disabled={save.isPending}>
        Save
      </button>
    </form>
  );
}

/** The workspace's escalation time: read by everyone, set by managers and owners. */
export function EscalationForm({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingsKeys.escalation(slug), queryFn: () => api("/api/workspace/escalation", { schema: escalationSchema }) });
  const [minutes, setMinutes] = useState<string | null>(null);
  const value = minutes ?? String(query.data?.escalateAfterMinutes ?? "");
  const save = useMutation({
    mutationFn: () => api("/api/workspace/escalation", { method: "PUT", body: { escalateAfterMinutes: Number(value) }, schema: escalationSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(settingsKeys.escalation(slug), saved);
      setMinutes(null);
      toast.success(saved.escalateAfterMinutes === 0 ? "Every request now reaches reviewers, managers and owners at once." : `Requests are now passed on after ${saved.escalateAfterMinutes} minutes.`);
    },
  });
  const n = query.data?.escalateAfterMinutes;
  return (
    <form
      className="card max-w-2xl space-y-3 p-4"
      aria-label="Passing requests on"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}>
      <h2 className="text-sm font-semibold">Passing requests on</h2>
      <p className="text-sm text-slate-700">
        {n === undefined
          ? "Loading…"
          : n === 0
            ? "Every request reaches the reviewers, managers and owners at once."
            : `A request is sent to the reviewers first. If nobody has decided it after ${n} minutes, the managers are told; after as long again, the owners.`}{" "}
        Everyone told is reminded at half and at nine tenths of the time a request has.
      </p>
      {canEdit ? (
        <div className="flex flex-wrap items-end gap-2">
          <label className="space-y-1 text-sm">
            <span className="label">Pass on after (minutes; 0 tells everyone at once)</span>
            <input className="input w-32" type="number" min={0} max={10080} required value={value} onChange={(e) => setMinutes(e.target.value)} />
          </label>
          <button type="submit" className="btn-secondary" disabled={save.isPending || minutes === null}>
            Save
          </button>
        </div>
      ) : null}
      {save.isError ? <ErrorNotice error={save.error} fallback="The time was not saved." /> : null}
    </form>
  );
}

const statusWords = { sent: "Sent", queued: "Waiting", sending: "Sending", failed: "Not sent", dropped: "Not needed" } as const;

/** The person's latest notifications, with what became of each (a failure says why, in words). */
export function RecentDeliveries() {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({ queryKey: settingsKeys.deliveries(slug), queryFn: () => api("/api/me/notifications/deliveries", { schema: deliveriesSchema }) });
  const deliveries = query.data?.deliveries ?? [];
  return (
    <section className="card max-w-2xl space-y-2 p-4" aria-label="Sent to you lately">
      <h2 className="text-sm font-semibold">Sent to you lately</h2>
      {query.isError ? <ErrorNotice error={query.error} fallback="Could not load what was sent to you." /> : null}
      {query.data && deliveries.length === 0 ? <p className="text-sm text-slate-600">Nothing has been sent to you in this workspace yet.</p> : null}
      <ul className="divide-y divide-slate-100 text-sm">
        {deliveries.map((d) => (
          <li key={d.id} className="flex flex-wrap items-baseline gap-x-2 py-1.5" data-testid="delivery">
            <span className={cn("font-medium", d.status === "failed" ? "text-rose-700" : "text-slate-800")}>{statusWords[d.status]}</span>
            <span className="min-w-0 flex-1">
              <a className="text-indigo-700 hover:underline" href={`/w/${slug}/approvals?approval=${d.approvalId}`}>
                {d.title} by @{d.agentHandle}
              </a>{" "}
              <span className="text-slate-600">
                {channelWords[d.channel]}, {stepWords[d.step]}
              </span>
              {d.error && (d.status === "failed" || d.status === "queued") ? (
                <span className={cn("block text-xs", d.status === "failed" ? "text-rose-700" : "text-amber-800")}>
                  {d.error} {d.status === "failed" ? `Tried ${d.attempts} times.` : "It will be tried again."}
                </span>
              ) : null}
            </span>
            <span className="text-xs text-slate-500">
              <Time at={d.at} />
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
