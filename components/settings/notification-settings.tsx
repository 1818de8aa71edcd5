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
  pushBrowserSchema,
  pushBrowsersSchema,
  slackLinkSchema,
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
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-0.5 size-4 accent-indigo-600" checked={draft.push && available.push} disabled={!available.push} onChange={(e) => set("push", e.target.checked)} />
          <span>
            Push notifications
            <span className="block text-xs text-slate-600">
              {available.push
                ? "On the phones and computers you turn them on below: the request's first line, and Approve or Reject right from the notification."
                : "Push notifications are not set up on this server."}
            </span>
          </span>
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-0.5 size-4 accent-indigo-600" checked={draft.slack && available.slack} disabled={!available.slack} onChange={(e) => set("slack", e.target.checked)} />
          <span>
            Slack
            <span className="block text-xs text-slate-600">
              {available.slack
                ? "A direct message from the workspace's Slack app with Approve, Reject and Open buttons, once your Slack account is linked below."
                : "This workspace has no Slack app connected with its signing secret. A manager can connect one under Settings → Connections."}
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

/** How the workspace passes requests on (the escalation time, a Slack channel): read by everyone, set by managers and owners. */
export function EscalationForm({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingsKeys.escalation(slug), queryFn: () => api("/api/workspace/escalation", { schema: escalationSchema }) });
  const [minutes, setMinutes] = useState<string | null>(null);
  const [channel, setChannel] = useState<string | null>(null);
  const value = minutes ?? String(query.data?.escalateAfterMinutes ?? "");
  const channelValue = channel ?? query.data?.slackChannel ?? "";
  const save = useMutation({
    mutationFn: () =>
      api("/api/workspace/escalation", {
        method: "PUT",
        body: { escalateAfterMinutes: Number(value), slackChannel: channelValue.trim() ? channelValue.trim() : null },
        schema: escalationSchema,
      }),
    onSuccess: (saved) => {
      queryClient.setQueryData(settingsKeys.escalation(slug), saved);
      setMinutes(null);
      setChannel(null);
      const when = saved.escalateAfterMinutes === 0 ? "Every request now reaches reviewers, managers and owners at once." : `Requests are now passed on after ${saved.escalateAfterMinutes} minutes.`;
      toast.success(saved.slackChannel ? `${when} Each is also posted to ${saved.slackChannel} on Slack.` : when);
    },
  });
  const n = query.data?.escalateAfterMinutes;
  const posted = query.data?.slackChannel;
  const prefs = useQuery({ queryKey: settingsKeys.notifications(slug), queryFn: () => api("/api/me/notifications", { schema: notificationPrefsSchema }) });
  const slackConnected = prefs.data?.available.slack ?? false;
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
            : `A request is sent to the reviewers first. If nobody has decided it after ${n} minutes, the managers are told; if still nobody has after ${2 * n} minutes, the owners.`}{" "}
        Everyone told is reminded when half of the time before the request expires has passed, and again when nine tenths has. Requests to spend past a cap go to
        managers and owners only.
        {posted
          ? slackConnected
            ? ` Each request is also posted to ${posted} on Slack, with a link to open it; decisions are made in direct messages or here.`
            : ` Requests are to be posted to ${posted} on Slack too, but no Slack app is connected with its signing secret yet, so nothing is posted.`
          : ""}
      </p>
      {canEdit ? (
        <div className="flex flex-wrap items-end gap-2">
          <label className="space-y-1 text-sm">
            <span className="label">Pass on after (minutes; 0 tells everyone at once)</span>
            <input className="input w-32" type="number" min={0} max={10080} required value={value} onChange={(e) => setMinutes(e.target.value)} />
          </label>
          <label className="min-w-52 flex-1 space-y-1 text-sm">
            <span className="label">Also post each request to this Slack channel (optional)</span>
            <input
              className="input"
              value={channelValue}
              placeholder="#approvals"
              pattern="#?[A-Za-z0-9_.\-]{1,80}"
              title="A channel name: letters, digits, dots, dashes and underscores, such as #approvals"
              onChange={(e) => setChannel(e.target.value)}
            />
          </label>
          <button type="submit" className="btn-secondary" disabled={save.isPending || (minutes === null && channel === null)}>
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
                  {d.error} {d.status === "failed" ? `Tried ${d.attempts === 1 ? "once" : `${d.attempts} times`}.` : "It will be tried again."}
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

/** "Chrome on Android": enough to tell one's devices apart, from the browser's own description. */
function deviceLabel(): string {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "A browser";
  const system = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Mac OS X/.test(ua) ? "macOS" : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "";
  return system ? `${browser} on ${system}` : browser;
}

/** The VAPID public key, as the Push API takes it. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = (base64url + "=".repeat((4 - (base64url.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** The browsers that show this person's push notifications, and turning them on for this one. */
export function PushBrowsers() {
  const api = useApi();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingsKeys.pushBrowsers(), queryFn: () => api("/api/me/push-subscriptions", { schema: pushBrowsersSchema }) });
  const supported = typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  const [problem, setProblem] = useState<string | null>(null);
  const enable = useMutation({
    mutationFn: async () => {
      setProblem(null);
      const permission = await Notification.requestPermission();
      if (permission !== "granted") throw new Error("This browser was not allowed to show notifications. Allow them for this site in the browser's settings, then try again.");
      const registration = await navigator.serviceWorker.register("/sw.js");
      await navigator.serviceWorker.ready;
      let subscription;
      try {
        subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(query.data!.publicKey) });
      } catch {
        throw new Error("The browser's push service could not be reached, so this browser cannot take notifications now. Try again later.");
      }
      return api("/api/me/push-subscriptions", { method: "POST", body: { ...subscription.toJSON(), label: deviceLabel() }, schema: pushBrowserSchema });
    },
    onError: (error) => setProblem(error instanceof Error ? error.message : "Push notifications could not be turned on."),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.pushBrowsers() }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/me/push-subscriptions/${id}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.pushBrowsers() }),
  });
  const browsers = query.data?.browsers ?? [];
  return (
    <section className="card max-w-2xl space-y-3 p-4" aria-label="Push notifications on your devices">
      <h2 className="text-sm font-semibold">Push notifications on your devices</h2>
      {query.isError ? <ErrorNotice error={query.error} fallback="Could not load your devices." /> : null}
      {query.data && browsers.length === 0 ? <p className="text-sm text-slate-600">No device shows your notifications yet.</p> : null}
      <ul className="divide-y divide-slate-100 text-sm">
        {browsers.map((b) => (
          <li key={b.id} className="flex flex-wrap items-center gap-x-2 py-1.5" data-testid="push-browser">
            <span className="min-w-0 flex-1">
              {b.label}{" "}
              <span className="text-xs text-slate-600">
                since <Time at={b.createdAt} />
                {b.lastSentAt ? (
                  <>
                    , last notified <Time at={b.lastSentAt} />
                  </>
                ) : null}
              </span>
            </span>
            <button type="button" className="btn-secondary py-1 text-xs" disabled={remove.isPending} onClick={() => remove.mutate(b.id)}>
              Stop
            </button>
          </li>
        ))}
      </ul>
      {supported ? (
        <button type="button" className="btn-secondary" disabled={!query.data || enable.isPending} onClick={() => enable.mutate()}>
          {enable.isPending ? "Turning on…" : "Turn on for this browser"}
        </button>
      ) : (
        <p className="text-sm text-slate-600">This browser cannot show push notifications. On an iPhone, add Clawdeck to the home screen first.</p>
      )}
      {problem ? (
        <p role="alert" className="text-sm text-rose-700">
          {problem}
        </p>
      ) : null}
    </section>
  );
}

/** Linking the person's Slack account: confirmed from Slack itself, so a name never decides who someone is. */
export function SlackLinkPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = settingsKeys.slackLink(slug);
  const query = useQuery({ queryKey: key, queryFn: () => api("/api/me/slack-link", { schema: slackLinkSchema }) });
  const prefs = useQuery({ queryKey: settingsKeys.notifications(slug), queryFn: () => api("/api/me/notifications", { schema: notificationPrefsSchema }) });
  const [memberId, setMemberId] = useState("");
  const start = useMutation({
    mutationFn: () => api("/api/me/slack-link", { method: "POST", body: memberId.trim() ? { slackUserId: memberId.trim() } : {}, schema: slackLinkSchema }),
    onSuccess: (reply) => queryClient.setQueryData(key, reply),
  });
  const unlink = useMutation({
    mutationFn: () => api("/api/me/slack-link", { method: "DELETE", schema: slackLinkSchema }),
    onSuccess: (reply) => queryClient.setQueryData(key, reply),
  });
  const link = query.data?.link;
  return (
    <section className="card max-w-2xl space-y-3 p-4" aria-label="Your Slack account">
      <h2 className="text-sm font-semibold">Your Slack account</h2>
      {query.isError ? <ErrorNotice error={query.error} fallback="Could not load your Slack link." /> : null}
      {link?.status === "linked" ? (
        <p className="text-sm text-slate-700">
          Linked to the Slack member {link.slackUserId} since <Time at={link.since} />. Requests reach you there when Slack is ticked above.
        </p>
      ) : link?.status === "pending" ? (
        <p className="text-sm text-slate-700" role="status">
          The workspace&apos;s Slack app sent you a direct message. Press <strong>Link my account</strong> in it to finish; until then nothing is sent to Slack.
        </p>
      ) : link && prefs.data && !prefs.data.available.slack ? (
        <p className="text-sm text-slate-700">
          This workspace has no Slack app connected with its signing secret yet, so there is nothing to link to. A manager connects it under Settings → Connections.
        </p>
      ) : link ? (
        <p className="text-sm text-slate-700">Not linked. The Slack app messages you a button that confirms the account is yours.</p>
      ) : null}
      {link && link.status !== "linked" && prefs.data?.available.slack ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            start.mutate();
          }}>
          <label className="min-w-52 flex-1 space-y-1 text-sm">
            <span className="label">Slack member ID (leave empty to find you by your email address)</span>
            <input className="input" value={memberId} onChange={(e) => setMemberId(e.target.value)} placeholder="U012AB3CD" pattern="[UW][A-Z0-9]{2,20}" />
          </label>
          <button type="submit" className="btn-secondary" disabled={start.isPending}>
            {link.status === "pending" ? "Send the message again" : "Link my Slack account"}
          </button>
        </form>
      ) : null}
      {link?.status === "linked" || link?.status === "pending" ? (
        <button type="button" className="btn-secondary py-1 text-xs" disabled={unlink.isPending} onClick={() => unlink.mutate()}>
          Unlink
        </button>
      ) : null}
      {start.isError ? <ErrorNotice error={start.error} fallback="Your Slack account could not be linked." /> : null}
    </section>
  );
}
