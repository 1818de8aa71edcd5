"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useState } from "react";
import { apiFetch, type ApiOptions, type ReplySchema } from "@/lib/client/api";
import { followOtherTabs } from "@/lib/client/tab-sync";
import type { Role } from "@/lib/db/schema";

export interface WorkspaceInfo {
  id: string;
  slug: string;
  name: string;
  role: Role;
  /** The IANA zone every date of the workspace is shown in (Settings → Workspace). */
  timeZone: string;
}

const WorkspaceContext = createContext<WorkspaceInfo | null>(null);
/** The signed-in person's id: whose own requests four eyes keeps them from approving. */
const ViewerContext = createContext<string | null>(null);

export function useViewerId(): string | null {
  return useContext(ViewerContext);
}

export function Providers({ workspace, viewerId = null, children }: { workspace: WorkspaceInfo; viewerId?: string | null; children: React.ReactNode }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: true } } }),
  );
  // A chat open in two tabs: what one tab changed, the other reads again (see lib/client/tab-sync.ts).
  useEffect(() => followOtherTabs(client), [client]);
  useEffect(() => {
    // API calls made outside this tab (scripts, curl with the browser's cookies) act in the last workspace opened.
    document.cookie = `clawdeck-workspace=${encodeURIComponent(workspace.slug)}; path=/; samesite=lax; max-age=31536000`;
  }, [workspace.slug]);
  return (
    <WorkspaceContext.Provider value={workspace}>
      <ViewerContext.Provider value={viewerId}>
        <QueryClientProvider client={client}>{children}</QueryClientProvider>
      </ViewerContext.Provider>
    </WorkspaceContext.Provider>
  );
}

export function useWorkspace(): WorkspaceInfo {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error("useWorkspace needs <Providers>");
  return workspace;
}

/** The zone dates are shown in: the workspace's, or the browser's outside a workspace. */
export function useTimeZone(): string | undefined {
  return useContext(WorkspaceContext)?.timeZone;
}

/** apiFetch bound to the workspace of this page, so two tabs in two workspaces never cross. */
export function useApi(): BoundApi {
  const workspace = useWorkspace();
  return (path: string, options: Omit<ApiOptions, "workspace"> & { schema?: ReplySchema<unknown> } = {}) =>
    apiFetch(path, { ...options, workspace: workspace.slug } as ApiOptions & { schema: ReplySchema<unknown> });
}

/** `apiFetch` without the workspace option: parsed by `schema` when one is given. */
export interface BoundApi {
  <T>(path: string, options: Omit<ApiOptions, "workspace"> & { schema: ReplySchema<T> }): Promise<T>;
  (path: string, options?: Omit<ApiOptions, "workspace"> & { schema?: undefined }): Promise<unknown>;
}
