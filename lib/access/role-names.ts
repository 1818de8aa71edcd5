// Roles, their order and their names, without zod: the browser imports these (the sidebar, the members page).
import type { Role } from "../db/schema";

export const roles = ["owner", "manager", "reviewer", "member"] as const satisfies readonly Role[];

const rank: Record<Role, number> = { member: 1, reviewer: 2, manager: 3, owner: 4 };

/** Roles are ordered: an owner can do what a manager can, a manager what a reviewer can, and so on. */
export function hasRole(role: Role, atLeast: Role): boolean {
  return rank[role] >= rank[atLeast];
}

export const roleLabels: Record<Role, string> = {
  owner: "Owner",
  manager: "Manager",
  reviewer: "Reviewer",
  member: "Member",
};

export const roleDescriptions: Record<Role, string> = {
  owner: "Everything, including other owners",
  manager: "Members, agents, budgets and prices",
  reviewer: "Decides gated agent actions",
  member: "Chats with agents",
};
