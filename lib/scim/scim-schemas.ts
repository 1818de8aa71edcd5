/** What the directory (SCIM) settings routes answer: the browser parses with these, the routes are checked against them. */
import { z } from "zod/mini";
import { isoDate, nullableDate } from "../shared-schemas";

/** The roles a group may give: never owner (only an owner makes another owner, in Members). */
export const groupRoleValues = ["manager", "reviewer", "member"] as const;
export type GroupRole = (typeof groupRoleValues)[number];

export const scimSettingsSchema = z.object({
  /** The live token's first characters and when it was made and last used; null: none, so the endpoints refuse every call. */
  token: z.nullable(z.object({ prefix: z.string(), createdAt: isoDate, lastUsedAt: nullableDate })),
  groupRoles: z.record(z.string(), z.enum(groupRoleValues)),
  /** The address the identity provider is given (SCIM base URL, tenant URL). */
  baseUrl: z.string(),
});
export type ScimSettings = z.infer<typeof scimSettingsSchema>;

/** A new token: shown this once. */
export const scimTokenCreatedSchema = z.object({ token: z.string() });
