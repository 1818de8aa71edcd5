import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { WebhooksPanel } from "@/components/webhooks/webhooks-panel";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "connections.manage")) forbidden();
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Webhooks</h1>
        <p className="mt-1 text-sm text-slate-600">
          Your own systems hear about what happens in {workspace.name}: requests asked and decided, runs and missions that end, budgets that pass a
          threshold, people who join or leave. Each message is signed (Standard Webhooks) and sent at least once, tried again for about a day.
        </p>
      </header>
      <WebhooksPanel />
    </div>
  );
}
