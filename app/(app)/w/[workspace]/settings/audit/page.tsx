import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { AuditLog } from "@/components/audit/audit-log";
import { AuditRetention } from "@/components/audit/audit-retention";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "audit.read")) forbidden();
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="mt-1 text-sm text-slate-600">
          Who did what in {workspace.name}, and when (times in {workspace.timeZone}). Entries are only ever added: nobody, not even an owner, can change one,
          and they are removed only once they are older than the retention below.
        </p>
      </header>
      <AuditRetention />
      <AuditLog />
    </div>
  );
}
