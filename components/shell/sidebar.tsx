"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useLiveApprovals } from "../approvals/live-approvals";
import type { NavItem } from "./nav-items";

function isActive(pathname: string, item: NavItem, items: NavItem[]) {
  if (pathname === item.href) return true;
  // A sub-page belongs to the longest item whose path it starts with (the overview owns only itself).
  const owners = items.filter((i) => i !== items[0] && pathname.startsWith(`${i.href}/`));
  return owners.length > 0 && owners.sort((a, b) => b.href.length - a.href.length)[0] === item;
}

export function SidebarNav({ items }: { items: NavItem[] }) {
  const pathname = usePathname();
  const { pending } = useLiveApprovals();
  const sections = [
    { id: "work", label: null },
    { id: "settings", label: "Settings" },
  ] as const;
  return (
    <nav aria-label="Main" className="flex flex-col gap-4">
      {sections.map((section) => {
        const sectionItems = items.filter((i) => i.section === section.id);
        if (sectionItems.length === 0) return null;
        return (
          <div key={section.id} className="flex flex-col gap-0.5">
            {section.label ? <div className="px-3 pb-1 text-[11px] font-medium uppercase tracking-wide text-slate-500">{section.label}</div> : null}
            {sectionItems.map((item) => {
              const active = isActive(pathname, item, items);
              const count = item.badge === "pendingApprovals" ? pending : null;
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  aria-current={active ? "page" : undefined}
                  className={`flex items-center justify-between rounded-md px-3 py-1.5 text-sm ${active ? "bg-slate-800 font-medium text-white" : "text-slate-300 hover:bg-slate-800/60 hover:text-white"}`}
                >
                  <span>{item.label}</span>
                  {count ? (
                    <span aria-label={`${count} pending`} data-testid="pending-approvals-badge" className="rounded-full bg-amber-500 px-2 text-xs font-semibold text-slate-900">
                      {count}
                    </span>
                  ) : null}
                </Link>
              );
            })}
          </div>
        );
      })}
    </nav>
  );
}
