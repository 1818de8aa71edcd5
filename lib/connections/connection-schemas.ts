/** What the connections API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";

/** A connection as listed: never its secret. */
export const connectionRowSchema = z.object({ id, provider: z.string(), label: z.string(), baseUrl: z.string(), hasSigningSecret: z.boolean(), updatedAt: isoDate });
export type ConnectionRow = z.infer<typeof connectionRowSchema>;

export const connectionListSchema = z.object({ connections: z.array(connectionRowSchema) });

export const credentialSchema = z.object({
  id,
  name: z.string(),
  hosts: z.array(z.string()),
  header: z.string(),
  scheme: z.string(),
  createdAt: isoDate,
});
export const credentialListSchema = z.object({ credentials: z.array(credentialSchema) });
export const credentialCreatedSchema = z.object({ credential: credentialSchema });
