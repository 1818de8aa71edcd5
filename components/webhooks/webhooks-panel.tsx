"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { webhookEventTypes, type WebhookEventType } from "@/lib/webhook-events";
import { webhookCreatedSchema, webhookDeliveriesSchema, webhookEventWords, webhookListSchema } from "@/lib/webhooks/webhook-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { Time } from "../ui/time";
import { cn } from "../ui/cn";
import { toast } from "../ui/toaster";
import { ShownOnce } from "../ui/shown-once";

const keys = {
  list: (slug: string) => ["webhooks", slug] as const,
  deliveries: (slug: string, id: string) => ["webhooks", slug, id, "deliveries"] as const,
};

/** The workspace's endpoints, a form to add one (its secret shown once), and each endpoint's delivery log. */
export function WebhooksPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  // Refreshed while open, so the counts follow the delivery log below.
  const list = useQuery({ queryKey: keys.list(slug), queryFn: () => api("/api/webhooks", { schema: webhookListSchema }), refetchInterval: 10_000 });
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<Set<WebhookEventType>>(new Set(["approval.requested", "approval.decided"]));
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api("/api/webhooks", { method: "POST", body: { url: url.trim(), events: [...events], ...(description.trim() ? { description: description.trim() } : {}) }, schema: webhookCreatedSchema }),
    onSuccess: (made) => {
      setSecret({ url: made.webhook.url, secret: made.secret });
      setUrl("");
      setDescription("");
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.list(slug) }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/webhooks/${id}`, { method: "DELETE" }),
    onSuccess: () => toast.success("The webhook was removed: nothing more is sent to it."),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.list(slug) }),
  });
  const hooks = list.data?.webhooks ?? [];

  return (
    <div className="space-y-6">
      {secret ? (
        <ShownOnce label="The new webhook's signing secret" title="Copy the signing secret now" what="the signing secret" value={secret.secret} testId="webhook-secret" onDone={() => setSecret(null)}>
          <p className="text-slate-700">
            Messages to <span className="break-all">{secret.url}</span> are signed with this secret. It is shown only this once; your receiver needs it to check each message.
          </p>
        </ShownOnce>
      ) : null}

      <section className="card space-y-3 p-4" aria-label="Webhooks">
        <h2 className="text-sm font-semibold">Endpoints</h2>
        {list.isError ? <ErrorNotice error={list.error} fallback="The webhooks could not be loaded." /> : null}
        {list.data && hooks.length === 0 ? <p className="text-sm text-slate-600">No webhook yet: nothing is sent anywhere.</p> : null}
        <ul className="divide-y divide-slate-100">
          {hooks.map((hook) => (
            <li key={hook.id} className="space-y-2 py-3" data-testid="webhook">
              <div className="flex flex-wrap items-start gap-2">
                <div className="min-w-0 flex-1 wrap-anywhere">
                  <p className="break-all font-mono text-sm text-slate-900">{hook.url}</p>
                  {hook.description ? <p className="text-sm text-slate-700">{hook.description}</p> : null}
                  <p className="text-xs text-slate-600">
                    {hook.events.map((e) => webhookEventWords[e]).join("; ")}. Made <Time at={hook.createdAt} />.{" "}
                    {hook.deliveries.delivered} delivered
                    {hook.deliveries.waiting > 0 ? `, ${hook.deliveries.waiting} waiting` : ""}
                    {hook.deliveries.failed > 0 ? `, ${hook.deliveries.failed} failed` : ""}.
                  </p>
                </div>
                <button type="button" className="btn-secondary py-1 text-xs" aria-expanded={open === hook.id} onClick={() => setOpen(open === hook.id ? null : hook.id)}>
                  {open === hook.id ? "Hide deliveries" : "Deliveries"}
                </button>
                <button type="button" className="btn-danger py-1 text-xs" disabled={remove.isPending} onClick={() => remove.mutate(hook.id)}>
                  Remove
                </button>
              </div>
              {open === hook.id ? <DeliveryLog webhookId={hook.id} /> : null}
            </li>
          ))}
        </ul>
      </section>

      <form
        className="card space-y-3 p-4"
        aria-label="Add a webhook"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}>
        <h2 className="text-sm font-semibold">Add a webhook</h2>
        <label className="block space-y-1 text-sm">
          <span className="label">Address</span>
          <input className="input" type="url" required placeholder="https://hooks.example.com/clawdeck" value={url} onChange={(e) => setUrl(e.target.value)} />
        </label>
        <label className="block space-y-1 text-sm">
          <span className="label">What it is for (optional)</span>
          <input className="input" maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <fieldset className="space-y-1">
          <legend className="text-sm font-medium">Send a message when</legend>
          {webhookEventTypes.map((type) => (
            <label key={type} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                className="size-4 accent-indigo-600"
                checked={events.has(type)}
                onChange={(e) => {
                  const next = new Set(events);
                  if (e.target.checked) next.add(type);
                  else next.delete(type);
                  setEvents(next);
                }}
              />
              {webhookEventWords[type]}
            </label>
          ))}
        </fieldset>
        {create.isError ? <ErrorNotice error={create.error} fallback="The webhook was not added." /> : null}
        <button type="submit" className="btn-primary" disabled={create.isPending || events.size === 0}>
          {create.isPending ? "Adding…" : "Add webhook"}
        </button>
      </form>
    </div>
  );
}

const statusWords = { queued: "Waiting", sending: "Sending", delivered: "Delivered", failed: "Failed" } as const;

/** One endpoint's latest messages: what was sent, what the receiver answered and how fast; "Send again" on each. */
function DeliveryLog({ webhookId }: { webhookId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const log = useQuery({
    queryKey: keys.deliveries(slug, webhookId),
    queryFn: () => api(`/api/webhooks/${webhookId}/deliveries`, { schema: webhookDeliveriesSchema }),
    refetchInterval: 10_000,
  });
  const again = useMutation({
    mutationFn: (deliveryId: string) => api(`/api/webhooks/${webhookId}/deliveries/${deliveryId}/retry`, { method: "POST" }),
    onSuccess: () => toast.success("It is sent again within a few seconds, with the same message id."),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.deliveries(slug, webhookId) }),
  });
  if (log.isError) return <ErrorNotice error={log.error} fallback="The deliveries could not be loaded." />;
  const rows = log.data?.deliveries ?? [];
  if (log.data && rows.length === 0) return <p className="text-sm text-slate-600">Nothing has been sent to it yet.</p>;
  return (
    <ul className="space-y-1 rounded-md bg-slate-50 p-2 text-sm" aria-label="Deliveries">
      {rows.map((d) => (
        <li key={d.id} className="flex flex-wrap items-baseline gap-x-2" data-testid="webhook-delivery">
          <span className={cn("font-medium", d.status === "failed" ? "text-rose-700" : d.status === "delivered" ? "text-emerald-700" : "text-amber-800")}>
            {statusWords[d.status]}
          </span>
          <span className="min-w-0 flex-1 wrap-anywhere">
            {webhookEventWords[d.eventType]}
            <span className="text-xs text-slate-600">
              {" "}
              · {d.attempts === 1 ? "1 attempt" : `${d.attempts} attempts`}
              {d.lastStatus !== null ? ` · answered ${d.lastStatus}` : ""}
              {d.lastDurationMs !== null ? ` in ${d.lastDurationMs} ms` : ""}
            </span>
            {d.lastError && d.status !== "delivered" ? (
              <span className="block text-xs text-rose-700">
                {d.lastError}
                {d.status === "queued" ? " It will be tried again." : ""}
              </span>
            ) : null}
          </span>
          <span className="text-xs text-slate-600">
            <Time at={d.deliveredAt ?? d.createdAt} />
          </span>
          {d.status !== "sending" ? (
            <button type="button" className="btn-secondary py-0.5 text-xs" disabled={again.isPending} onClick={() => again.mutate(d.id)}>
              Send again
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
