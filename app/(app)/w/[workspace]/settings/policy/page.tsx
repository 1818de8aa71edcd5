import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { PolicyPanel } from "@/components/policy/policy-panel";
import { GovernorPanel } from "@/components/governor/governor-panel";

export const metadata: Metadata = { title: "Policy" };

export default async function PolicyPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Policy</h1>
        <p className="mt-1 text-sm text-slate-600">
          Which agent actions need a person&apos;s approval. Tools are judged by what they declare they do, and by whether the run has
          read untrusted content (web pages, mail, other agents). Changes apply to the next call; a tool or category set to Deny
          also withdraws the requests of it that are still waiting.
        </p>
      </header>
      <PolicyPanel canEdit={can(workspace.role, "policy.manage")} />
      <GovernorPanel canEdit={can(workspace.role, "policy.manage")} />
    </div>
  );
}
