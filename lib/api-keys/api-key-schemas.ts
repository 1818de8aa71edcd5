/** What the API key routes answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";

const role = z.enum(["owner", "manager", "reviewer", "member"]);

export const apiKeyRowSchema = z.object({
  id,
  name: z.string(),
  role,
  /** The first characters of the key, to tell keys apart. */
  prefix: z.string(),
  createdBy: z.object({ id, name: z.string() }),
  createdAt: isoDate,
  expiresAt: z.nullable(isoDate),
  lastUsedAt: z.nullable(isoDate),
  revokedAt: z.nullable(isoDate),
});
export type ApiKeyRow = z.infer<typeof apiKeyRowSchema>;
/** A key as the server hands it over (dates as Date). */
export type ApiKeySummary = z.input<typeof apiKeyRowSchema>;

export const apiKeyListSchema = z.object({ keys: z.array(apiKeyRowSchema) });

/** A new key: the key itself is in this answer and nowhere else, ever. */
export const apiKeyCreatedSchema = z.object({ id, key: z.string(), apiKey: apiKeyRowSchema });
