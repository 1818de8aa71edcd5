"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useLiveApprovals } from "../approvals/live-approvals";
import { cn } from "../ui/cn";
import type { NavItem } from "./nav-items";

function isActive(pathname: string, item: NavItem, items: NavItem[]) {
  if (pathname === item.href) return true;
  // A sub-page belongs to the longest item whose path it starts with (the overview owns only itself).
  const owners = items.filter((i) => i !== items[0] && pathname.startsWith(`${i.href}/`));
  return owners.length > 0 && owners.sort((a, b) => b.href.length - a.href.length)[0] === item;
}

const sections = [
  { id: "work", label: null },
  { id: "settings", label: "Settings" },
] as const;

/** The list of areas; `onNavigate` lets the phone's drawer close itself when a link is followed. */
export function SidebarNav({ items, onNavigate }: { items: NavItem[]; onNavigate?: () => void }) {
  const pathname = usePathname();
  const { pending } = useLiveApprovals();
  return (
    <nav aria-label="Main" className="flex flex-col gap-4">
      {sections.map((section) => {
        const sectionItems = items.filter((i) => i.section === section.id);
        if (sectionItems.length === 0) return null;
        const headingId = `nav-section-${section.id}`;
        return (
          <div key={section.id} className="flex flex-col gap-0.5">
            {section.label ? (
              <h2 id={headingId} className="px-3 pb-1 text-[11px] font-medium tracking-wide text-sidebar-muted uppercase">
                {section.label}
              </h2>
            ) : null}
            <ul className="flex flex-col gap-0.5" aria-labelledby={section.label ? headingId : undefined}>
              {sectionItems.map((item) => {
                const active = isActive(pathname, item, items);
                const count = item.badge === "pendingApprovals" ? pending : null;
                return (
                  <li key={item.href}>
                    <Link
                      href={item.href}
                      onClick={onNavigate}
                      aria-current={active ? "page" : undefined}
                      className={cn(
                        "flex items-center justify-between rounded-md px-3 py-2 text-sm md:py-1.5",
                        active ? "bg-sidebar-accent font-medium text-white" : "text-[#dbe3ee] hover:bg-sidebar-accent/60 hover:text-white",
                      )}
                    >
                      <span>{item.label}</span>
                      {count ? (
                        <span aria-label={`${count} pending`} data-testid="pending-approvals-badge" className="rounded-full bg-amber-400 px-2 text-xs font-semibold text-[#1c1917]">
                          {count}
                        </span>
                      ) : null}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}
