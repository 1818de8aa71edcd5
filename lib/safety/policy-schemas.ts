/** What the policy API answers with: the browser parses with these, the route is type-checked against them. */
import { z } from "zod/mini";

export const policyModeSchema = z.enum(["ask", "allow", "deny"]);

export const policyViewSchema = z.object({
  overrides: z.object({
    tools: z.record(z.string(), policyModeSchema),
    /** A category left out keeps its default. */
    categories: z.record(z.string(), z.optional(policyModeSchema)),
  }),
  fourEyesCategories: z.array(z.string()),
  approvalTtlSeconds: z.number(),
  /** Send it back with the next save: a save made from an older version is refused (409 conflict:stale). */
  version: z.number(),
  tools: z.array(z.object({ name: z.string(), description: z.string(), effects: z.array(z.string()), defaultDecision: z.string(), taintedDecision: z.string() })),
  categories: z.array(z.object({ id: z.string(), label: z.string() })),
});
export type PolicyView = z.infer<typeof policyViewSchema>;

export const policyReplySchema = z.object({
  policy: policyViewSchema,
  /** After a save: how many waiting requests it withdrew (their tool or category is now denied). */
  withdrawn: z.optional(z.number()),
});
