import type { z } from "zod/mini";
import type { ReplySchema } from "../client/api";
import { roles } from "../access/role-names";
import type { workspaceCreatedSchema } from "./workspace-schemas";

type WorkspaceCreated = z.infer<typeof workspaceCreatedSchema>;

const fail = (path: string[], message: string) => ({ success: false as const, error: { issues: [{ path, message }] } });

/**
 * `workspaceCreatedSchema`, checked without zod: the workspace switcher lives
 * in the workspace layout, which every page loads and which carries no zod
 * (see lib/client/approvals-stream.ts). The contract test holds the two to
 * the same answers.
 */
export const workspaceCreatedCheck: ReplySchema<WorkspaceCreated> = {
  safeParse(value) {
    const workspace: unknown = value && typeof value === "object" && "workspace" in value ? value.workspace : undefined;
    if (!workspace || typeof workspace !== "object") return fail(["workspace"], "Expected an object");
    const { id, slug, name, role: named } = workspace as Record<string, unknown>;
    if (typeof id !== "string") return fail(["workspace", "id"], "Expected a string");
    if (typeof slug !== "string") return fail(["workspace", "slug"], "Expected a string");
    if (typeof name !== "string") return fail(["workspace", "name"], "Expected a string");
    const role = roles.find((r) => r === named);
    if (!role) return fail(["workspace", "role"], "Expected a role");
    return { success: true, data: { workspace: { id, slug, name, role } } };
  },
};
