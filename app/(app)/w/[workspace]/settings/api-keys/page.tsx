import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { ApiKeysPanel } from "@/components/api-keys/api-keys-panel";

export const metadata: Metadata = { title: "API keys" };

export default async function ApiKeysPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "apiKeys.manage")) forbidden();
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="mt-1 text-sm text-slate-600">
          Scripts use {workspace.name}&apos;s API with a key instead of a password: the same routes, rules and limits as the person who made the key, and the
          audit log names the key.
        </p>
      </header>
      <ApiKeysPanel />
    </div>
  );
}
