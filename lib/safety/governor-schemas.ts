/** What the governor API answers with: the browser parses with these, the route is type-checked against them. */
import { z } from "zod/mini";

export const governorModeSchema = z.enum(["people", "judge_then_people", "judge"]);
export type GovernorMode = z.infer<typeof governorModeSchema>;

export const governorSchema = z.object({
  /** Who decides each category of gated request; a category left out: people. */
  modes: z.record(z.string(), z.optional(governorModeSchema)),
  judgeModel: z.nullable(z.string()),
  judgeTimeoutSeconds: z.number(),
  failOpen: z.boolean(),
  doorWaitSeconds: z.nullable(z.number()),
});
export type Governor = z.infer<typeof governorSchema>;

export const governorReplySchema = z.object({ governor: governorSchema });

/** With what an unset setting means on this server (the door's wait comes from the environment). */
export const governorViewSchema = z.extend(governorReplySchema, { defaults: z.object({ doorWaitSeconds: z.number() }) });
