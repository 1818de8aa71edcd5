import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { TimeZoneForm } from "@/components/settings/time-zone-form";
import { WorkspaceNameForm } from "@/components/settings/workspace-name-form";
import { TelemetryForm } from "@/components/settings/telemetry-form";

export const metadata: Metadata = { title: "Workspace" };

export default async function WorkspaceSettingsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Workspace</h1>
        <p className="mt-1 text-sm text-slate-600">What {workspace.name} is called, how it shows dates and counts its days, and what its traces carry.</p>
      </header>
      <WorkspaceNameForm canEdit={can(workspace.role, "workspace.manage")} />
      <TimeZoneForm canEdit={can(workspace.role, "workspace.manage")} />
      <TelemetryForm canEdit={can(workspace.role, "workspace.manage")} />
    </div>
  );
}
