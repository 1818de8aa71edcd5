import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { SsoPanel } from "@/components/settings/sso-panel";

export const metadata: Metadata = { title: "Single sign-on" };

export default async function SsoPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "sso.manage")) forbidden();
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Single sign-on</h1>
        <p className="mt-1 text-sm text-slate-600">How the people of {workspace.name} sign in: through your company&apos;s identity provider, and who joins by it.</p>
      </header>
      <SsoPanel />
    </div>
  );
}
