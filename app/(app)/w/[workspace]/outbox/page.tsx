import type { Metadata } from "next";
import { Time } from "@/components/ui/time";
import { listOutboxForViewer } from "@/lib/connections/connections";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";

export const metadata: Metadata = { title: "Outbox" };

export default async function OutboxPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { user, workspace } = await requireWorkspacePage((await params).workspace);
  const { db } = await getServer();
  const messages = await listOutboxForViewer(db, workspace.id, { userId: user.id, role: workspace.role });
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Outbox</h1>
        <p className="mt-1 text-sm text-slate-600">
          Messages your agents would have sent to outside services that are not connected yet.
        </p>
      </header>
      <p role="note" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
        <strong>Not sent outside.</strong> Nothing here left Clawdeck. Connect Slack under Settings → Connections to deliver for real.
      </p>
      {messages.length === 0 ? (
        <p className="card p-6 text-sm text-slate-600">The outbox is empty.</p>
      ) : (
        <ul className="space-y-3" aria-label="Outbox messages">
          {messages.map((m) => (
            <li key={m.id} className="card p-4">
              <div className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
                <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-700">{m.service}</span>
                <span className="font-medium text-slate-700">{m.destination}</span>
                {m.agent ? <span>from @{m.agent.handle}</span> : null}
                <Time className="ml-auto" at={m.createdAt.toISOString()} />
              </div>
              <p className="mt-2 whitespace-pre-wrap text-sm">{m.body}</p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
