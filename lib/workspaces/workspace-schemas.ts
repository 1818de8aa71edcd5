/** What the workspace, member and invitation APIs answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";
import { roles } from "../access/role-names";

export const roleSchema = z.enum(roles);

export const memberRowSchema = z.object({ userId: id, email: z.string(), name: z.string(), role: roleSchema, joinedAt: isoDate });
export type MemberRow = z.infer<typeof memberRowSchema>;
export const memberListSchema = z.object({ members: z.array(memberRowSchema) });

export const pendingInvitationSchema = z.object({ id, email: z.string(), role: roleSchema, invitedBy: z.nullable(z.string()), expiresAt: isoDate });
export type PendingInvitation = z.infer<typeof pendingInvitationSchema>;
export const invitationListSchema = z.object({ invitations: z.array(pendingInvitationSchema) });

/**
 * A new invitation: the link (with its token) comes back this once. `emailed`: it was also sent to the address (a mail
 * server is configured and took it); `emailError`: why it could not be (the link still works).
 */
export const invitationCreatedSchema = z.object({
  id,
  url: z.string(),
  token: z.string(),
  emailed: z.optional(z.boolean()),
  emailError: z.optional(z.nullable(z.string())),
});

export const workspaceCreatedSchema = z.object({ workspace: z.object({ id, slug: z.string(), name: z.string(), role: roleSchema }) });

export const timeZoneSchema = z.object({ timeZone: z.string() });

/** A password changed: how many of the person's other sessions ended. */
export const passwordChangedSchema = z.object({ endedSessions: z.number() });

export const workspaceNameReplySchema = z.object({ name: z.string() });
