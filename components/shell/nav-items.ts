import type { Role } from "@/lib/db/schema";

export interface NavItem {
  href: string;
  label: string;
  /** Least role that sees the item. */
  role?: Role;
}

/** The areas that exist. Each later area adds its entry here. */
export function navItems(slug: string): NavItem[] {
  return [
    { href: `/w/${slug}`, label: "Overview" },
    { href: `/w/${slug}/settings/members`, label: "Members", role: "manager" },
  ];
}
