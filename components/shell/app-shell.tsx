import { can } from "@/lib/access/capabilities";
import type { WorkspacePage } from "@/lib/http/page";
import { Providers } from "../providers";
import { LiveApprovalsProvider } from "../approvals/live-approvals";
import { MobileHeader } from "./mobile-header";
import { navItems } from "./nav-items";
import { SidebarContent } from "./sidebar-content";

/**
 * The frame of every workspace page. From 768 px the navigation is a
 * column on the left; below it, a top bar whose menu button opens the
 * same navigation as a drawer.
 */
export function AppShell({ page, children }: { page: WorkspacePage; children: React.ReactNode }) {
  const { user, workspace, workspaces } = page;
  const items = navItems(workspace.slug).filter((item) => !item.can || can(workspace.role, item.can));
  const sidebar = { user: { name: user.name, email: user.email }, workspace, workspaces, items };
  return (
    <Providers workspace={workspace} viewerId={user.id}>
      <LiveApprovalsProvider slug={workspace.slug}>
        <div className="flex min-h-screen flex-col md:flex-row">
          <MobileHeader sidebar={sidebar} />
          <aside aria-label="Workspace navigation" className="hidden w-60 shrink-0 bg-sidebar md:block">
            <div className="sticky top-0 flex h-screen flex-col overflow-y-auto">
              <SidebarContent {...sidebar} />
            </div>
          </aside>
          <main id="main" className="min-w-0 flex-1 px-4 py-5 sm:px-6 md:p-8">
            {children}
          </main>
        </div>
      </LiveApprovalsProvider>
    </Providers>
  );
}
