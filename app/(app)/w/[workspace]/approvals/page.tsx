import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { canDecideApproval } from "@/lib/access/access";
import { approvalKeys } from "@/lib/client/query-keys";
import { prefetch, prefetchState } from "@/lib/http/prefetch";
import { approvalListSchema } from "@/lib/safety/approval-schemas";
import { listApprovalsForViewer } from "@/lib/safety/approval-reads";
import { approvalListQuerySchema } from "@/lib/safety/approvals";
import { getServer } from "@/lib/server";
import { ApprovalsInbox } from "@/components/approvals/inbox";
import { facetsSearch, filtersFrom, historySearch, pendingSearch } from "@/components/approvals/inbox-filters";

export const metadata: Metadata = { title: "Approvals" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function ApprovalsPage({ params, searchParams }: { params: Promise<{ workspace: string }>; searchParams: Promise<SearchParams> }) {
  const { workspace, user } = await requireWorkspacePage((await params).workspace);
  const { db } = await getServer();
  const address = await searchParams;
  const filters = filtersFrom((name) => {
    const value = address[name];
    return typeof value === "string" ? value : null;
  });
  // The lists the inbox asks for first, read as GET /api/approvals reads them (any member, each approval as this viewer may see it).
  const viewer = { userId: user.id, role: workspace.role };
  const list = (search: string) => async () => ({
    approvals: await listApprovalsForViewer(db, workspace.id, viewer, approvalListQuerySchema.parse(Object.fromEntries(new URLSearchParams(search)))),
  });
  const prefetched = await prefetchState([
    prefetch(approvalKeys.facets(workspace.slug), approvalListSchema, list(facetsSearch)),
    filters.tab === "pending"
      ? prefetch(approvalKeys.pending(workspace.slug, pendingSearch(filters)), approvalListSchema, list(pendingSearch(filters)))
      : prefetch(approvalKeys.historyFiltered(workspace.slug, filters), approvalListSchema, list(historySearch(filters))),
  ]);
  return (
    <div className="mx-auto max-w-4xl space-y-6 xl:max-w-6xl">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Approvals</h1>
        <p className="mt-1 text-sm text-slate-600">
          Agent actions that need a person before they happen. Each decision applies to exactly the call shown, once.
        </p>
      </header>
      <HydrationBoundary state={prefetched}>
        <ApprovalsInbox viewerId={user.id} canDecide={canDecideApproval(workspace)} />
      </HydrationBoundary>
    </div>
  );
}
