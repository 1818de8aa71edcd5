import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { ScimPanel } from "@/components/directory/scim-panel";

export const metadata: Metadata = { title: "Directory (SCIM)" };

export default async function DirectoryPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "scim.manage")) forbidden();
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Directory (SCIM)</h1>
        <p className="mt-1 text-sm text-slate-600">
          Your identity provider (Okta, Entra ID and others) adds people to {workspace.name}, changes their role through their groups, and deactivates them.
          It adds only people whose email is in one of the workspace&apos;s own domains (Settings → Single sign-on), or who are already members.
          Deactivating someone takes them out of {workspace.name} within seconds, with their API keys and door tokens; what they did here stays.
        </p>
      </header>
      <ScimPanel />
    </div>
  );
}
