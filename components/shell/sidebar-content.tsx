"use client";

import { roleLabels } from "@/lib/access/role-names";
import type { WorkspaceInfo } from "../providers";
import { ThemeToggle } from "../ui/theme-toggle";
import type { NavItem } from "./nav-items";
import { SidebarNav } from "./sidebar";
import { signOutAction } from "./sign-out";
import { WorkspaceSwitcher } from "./workspace-switcher";

export interface SidebarProps {
  user: { name: string; email: string };
  workspace: Omit<WorkspaceInfo, "timeZone">;
  workspaces: Omit<WorkspaceInfo, "timeZone">[];
  items: NavItem[];
}

export const sidebarIconButton = "btn p-2 text-sidebar-muted hover:bg-sidebar-accent hover:text-white";

/** Everything in the navigation column; rendered in the desktop column and in the phone's drawer. */
export function SidebarContent({ user, workspace, workspaces, items, onNavigate }: SidebarProps & { onNavigate?: () => void }) {
  return (
    <div className="flex min-h-full flex-1 flex-col gap-6 bg-sidebar p-4 text-[#e2e8f0]">
      <div className="px-1 text-lg font-semibold tracking-tight text-white">Clawdeck</div>
      <WorkspaceSwitcher current={workspace} workspaces={workspaces} />
      <SidebarNav items={items} onNavigate={onNavigate} />
      <div className="mt-auto space-y-2 border-t border-sidebar-border pt-4 text-sm">
        <div className="truncate font-medium text-white" data-testid="current-user">
          {user.name}
        </div>
        <div className="truncate text-xs text-sidebar-muted">{user.email}</div>
        <div className="text-xs wrap-anywhere text-sidebar-muted">
          {roleLabels[workspace.role]} in {workspace.name}
        </div>
        <div className="flex items-center justify-between">
          <form action={signOutAction}>
            <button type="submit" className="btn mt-1 px-0 text-[#dbe3ee] hover:text-white">
              Sign out
            </button>
          </form>
          <ThemeToggle className={sidebarIconButton} />
        </div>
      </div>
    </div>
  );
}
