import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { MembersPanel } from "@/components/members/members-panel";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace, user } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "members.manage")) {
    forbidden();
  }
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Members</h1>
        <p className="mt-1 text-sm text-slate-600">People in {workspace.name} and what each may do.</p>
      </header>
      <MembersPanel currentUserId={user.id} />
    </div>
  );
}
