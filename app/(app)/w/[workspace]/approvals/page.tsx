import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { canDecideApproval } from "@/lib/access/access";
import { ApprovalsInbox } from "@/components/approvals/inbox";

export const metadata: Metadata = { title: "Approvals" };

export default async function ApprovalsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace, user } = await requireWorkspacePage((await params).workspace);
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Approvals</h1>
        <p className="mt-1 text-sm text-slate-600">
          Agent actions that need a person before they happen. Each decision applies to exactly the call shown, once.
        </p>
      </header>
      <ApprovalsInbox viewerId={user.id} canDecide={canDecideApproval(workspace)} />
    </div>
  );
}
