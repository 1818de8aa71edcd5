"use client";

import { Menu } from "lucide-react";
import { useState } from "react";
import { useLiveApprovals } from "../approvals/live-approvals";
import { Sheet, SheetContent, SheetTrigger } from "../ui/sheet";
import { ThemeToggle } from "../ui/theme-toggle";
import { SidebarContent, sidebarIconButton, type SidebarProps } from "./sidebar-content";

/** The phone's top bar: the menu (with the pending-approvals count on it), the name, the theme. */
export function MobileHeader({ sidebar }: { sidebar: SidebarProps }) {
  const [open, setOpen] = useState(false);
  const { pending } = useLiveApprovals();
  const label = pending ? `Menu, ${pending} approval${pending === 1 ? "" : "s"} pending` : "Menu";
  return (
    <header className="sticky top-0 z-40 flex h-14 items-center gap-2 bg-sidebar px-2 text-white md:hidden">
      <Sheet open={open} onOpenChange={setOpen}>
        <SheetTrigger className={`${sidebarIconButton} relative`} aria-label={label} data-testid="menu-button">
          <Menu aria-hidden className="size-6" />
          {pending ? (
            <span aria-hidden data-testid="menu-pending-badge" className="absolute -top-0.5 -right-0.5 min-w-5 rounded-full bg-amber-400 px-1 text-center text-xs leading-5 font-semibold text-[#1c1917]">
              {pending}
            </span>
          ) : null}
        </SheetTrigger>
        <SheetContent title="Navigation" className="bg-sidebar">
          <SidebarContent {...sidebar} onNavigate={() => setOpen(false)} />
        </SheetContent>
      </Sheet>
      <span className="flex-1 truncate text-base font-semibold tracking-tight">
        Clawdeck <span className="font-normal text-sidebar-muted">· {sidebar.workspace.name}</span>
      </span>
      <ThemeToggle className={sidebarIconButton} />
    </header>
  );
}
