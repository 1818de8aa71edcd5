/** What the audit log's routes answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { isoDate } from "../shared-schemas";

export const auditItemSchema = z.object({
  id: z.number(),
  at: isoDate,
  actor: z.object({ kind: z.string(), id: z.nullable(z.string()), name: z.nullable(z.string()) }),
  action: z.string(),
  object: z.nullable(z.object({ type: z.string(), id: z.string() })),
  details: z.record(z.string(), z.unknown()),
});
export type AuditItem = z.infer<typeof auditItemSchema>;

/** One page, newest first; `next` is the `before` that reads the page after it (null: the end). */
export const auditPageSchema = z.object({ items: z.array(auditItemSchema), next: z.nullable(z.number()) });

/** How many days the audit log keeps an entry. */
export const auditRetentionSchema = z.object({ days: z.number() });
