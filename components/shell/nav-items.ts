import type { Capability } from "@/lib/access/capabilities";

export interface NavItem {
  href: string;
  label: string;
  /** The action the item's page is for: only people who may take it see the item. */
  can?: Capability;
  section: "work" | "settings";
  /** A live count shown beside the label. */
  badge?: "pendingApprovals";
}

/** The areas that exist, in the order the sidebar shows them. */
export function navItems(slug: string): NavItem[] {
  return [
    { href: `/w/${slug}`, label: "Overview", section: "work" },
    { href: `/w/${slug}/chat`, label: "Chat", section: "work" },
    { href: `/w/${slug}/approvals`, label: "Approvals", section: "work", badge: "pendingApprovals" },
    { href: `/w/${slug}/usage`, label: "Usage", can: "spend.read", section: "work" },
    { href: `/w/${slug}/outbox`, label: "Outbox", section: "work" },
    { href: `/w/${slug}/agents`, label: "Agents", section: "work" },
    { href: `/w/${slug}/rooms`, label: "Rooms", section: "work" },
    { href: `/w/${slug}/missions`, label: "Missions", section: "work" },
    { href: `/w/${slug}/feed`, label: "Feed", section: "work" },
    { href: `/w/${slug}/settings/workspace`, label: "Workspace", section: "settings" },
    { href: `/w/${slug}/settings/members`, label: "Members", can: "members.manage", section: "settings" },
    { href: `/w/${slug}/settings/policy`, label: "Policy", section: "settings" },
    { href: `/w/${slug}/settings/billing`, label: "Billing", can: "spend.read", section: "settings" },
    { href: `/w/${slug}/settings/connections`, label: "Connections", can: "connections.manage", section: "settings" },
    { href: `/w/${slug}/settings/webhooks`, label: "Webhooks", can: "connections.manage", section: "settings" },
    { href: `/w/${slug}/settings/api-keys`, label: "API keys", can: "apiKeys.manage", section: "settings" },
    { href: `/w/${slug}/settings/directory`, label: "Directory (SCIM)", can: "scim.manage", section: "settings" },
    { href: `/w/${slug}/settings/sso`, label: "Single sign-on", can: "sso.manage", section: "settings" },
    { href: `/w/${slug}/settings/audit`, label: "Audit log", can: "audit.read", section: "settings" },
    { href: `/w/${slug}/settings/notifications`, label: "Notifications", section: "settings" },
    { href: `/w/${slug}/settings/account`, label: "Your account", section: "settings" },
  ];
}
