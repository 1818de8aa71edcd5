/** What the door tokens API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate, nullableDate } from "../shared-schemas";

export const doorTokenRowSchema = z.object({
  id,
  agentId: id,
  agentHandle: z.string(),
  name: z.string(),
  /** The first characters of the token, to tell tokens apart; the token itself is never shown again. */
  prefix: z.string(),
  createdBy: z.nullable(z.string()),
  expiresAt: nullableDate,
  revokedAt: nullableDate,
  lastUsedAt: nullableDate,
  callCount: z.number(),
  createdAt: isoDate,
});
export type DoorTokenRow = z.infer<typeof doorTokenRowSchema>;

export const doorTokenListSchema = z.object({ tokens: z.array(doorTokenRowSchema) });

/** A new token: the only time its secret is sent. */
export const doorTokenCreatedSchema = z.object({ id, token: z.string() });
