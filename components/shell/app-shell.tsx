import { hasRole, roleLabels } from "@/lib/workspaces/roles";
import type { WorkspacePage } from "@/lib/http/page";
import { Providers } from "../providers";
import { LiveApprovalsProvider } from "../approvals/live-approvals";
import { navItems } from "./nav-items";
import { SidebarNav } from "./sidebar";
import { signOutAction } from "./sign-out";
import { WorkspaceSwitcher } from "./workspace-switcher";

export function AppShell({ page, children }: { page: WorkspacePage; children: React.ReactNode }) {
  const { user, workspace, workspaces } = page;
  const items = navItems(workspace.slug).filter((item) => !item.role || hasRole(workspace.role, item.role));
  return (
    <Providers workspace={workspace}>
      <LiveApprovalsProvider slug={workspace.slug}>
      <div className="flex min-h-screen">
        <aside className="flex w-60 shrink-0 flex-col gap-6 bg-slate-900 p-4 text-slate-200">
          <div className="px-1 text-lg font-semibold tracking-tight text-white">Clawdeck</div>
          <WorkspaceSwitcher current={workspace} workspaces={workspaces} />
          <SidebarNav items={items} />
          <div className="mt-auto space-y-2 border-t border-slate-800 pt-4 text-sm">
            <div className="truncate font-medium text-white" data-testid="current-user">
              {user.name}
            </div>
            <div className="truncate text-xs text-slate-400">{user.email}</div>
            <div className="text-xs text-slate-400">
              {roleLabels[workspace.role]} in {workspace.name}
            </div>
            <form action={signOutAction}>
              <button type="submit" className="btn mt-1 px-0 text-slate-300 hover:text-white">
                Sign out
              </button>
            </form>
          </div>
        </aside>
        <main className="min-w-0 flex-1 p-8">{children}</main>
      </div>
      </LiveApprovalsProvider>
    </Providers>
  );
}
