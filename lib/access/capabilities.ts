// Who may do what, as one table: routes, pages, streams, domain rules and the browser (to hide what a person cannot
// do) all read it. No zod and no database here: the browser imports it.
import type { Role } from "../db/schema";
import { hasRole, roles } from "./role-names";

/** Each action with the least role that may take it (roles are ordered: owner, manager, reviewer, member). */
export const capabilities = {
  /** Decide gated actions in the inbox. */
  "approvals.decide": "reviewer",
  /** Open every chat and run of the workspace, not only one's own: reviewers judge where requests came from. */
  "chats.readAll": "reviewer",
  /** Credits, costs, prices, budgets and the usage page. */
  "spend.read": "reviewer",
  /** Create and edit agents, pause them, make their door tokens. */
  "agents.manage": "manager",
  /** Create rooms. */
  "rooms.create": "manager",
  /** Create and edit crews. */
  "crews.manage": "manager",
  /** Stop a mission someone else started. */
  "missions.stopAny": "manager",
  /** Stop a run acting for someone else. */
  "runs.stopAny": "manager",
  /** The approval policy and the governor. */
  "policy.manage": "manager",
  /** Workspace settings (its time zone). */
  "workspace.manage": "manager",
  /** Service credentials and the list of every door token. */
  "connections.manage": "manager",
  /** People: invitations, roles and removal (the owner role stays with owners). */
  "members.manage": "manager",
  /** Prices and budgets. */
  "billing.manage": "manager",
  /** Make, list and revoke API keys for scripts (a key's role is never above its maker's). */
  "apiKeys.manage": "manager",
  /** Read and export the audit log. */
  "audit.read": "manager",
  /** While nobody else may decide gated calls: approve one's own requests, until a second reviewer joins. */
  "approvals.ownWhileAlone": "owner",
  /** How long the audit log keeps entries. */
  "audit.retention": "owner",
  /** The directory (SCIM): its token and which groups give which roles. */
  "scim.manage": "owner",
  /** Grant, change or remove the owner role. */
  "owners.manage": "owner",
  /** Single sign-on: require it, and the email domains whose people join by it. */
  "sso.manage": "owner",
} as const satisfies Record<string, Role>;

export type Capability = keyof typeof capabilities;

/** Whether a person of `role` may take `action`. */
export function can(role: Role, action: Capability): boolean {
  return hasRole(role, capabilities[action]);
}

/** The roles that may take `action`, highest first. */
export function rolesFor(action: Capability): Role[] {
  return roles.filter((role) => can(role, action));
}
