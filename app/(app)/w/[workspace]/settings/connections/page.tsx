import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { ConnectionsPanel } from "@/components/connections/connections-panel";
import { CredentialsPanel } from "@/components/connections/credentials-panel";
import { DoorTokensPanel } from "@/components/door/door-tokens";

export const metadata: Metadata = { title: "Connections" };

export default async function ConnectionsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "connections.manage")) {
    forbidden();
  }
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Connections</h1>
        <p className="mt-1 text-sm text-slate-600">
          Credentials your agents&apos; tools use to reach outside services. They are encrypted at rest, used only on the server, and
          never shown to a model or sent to a browser.
        </p>
      </header>
      <ConnectionsPanel />
      <CredentialsPanel />
      <DoorTokensPanel />
    </div>
  );
}
