/** What the feed API and its stream carry: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { isoDate } from "../shared-schemas";

/** Missing or null both read as null: an older item may not carry every link. */
const nullableId = z.pipe(z.optional(z.nullable(z.string())), z.transform((v) => v ?? null));

/** One entry of the world feed, as a page of the API and as a stream event. */
export const feedItemSchema = z.object({
  seq: z.number().check(z.int(), z.minimum(1)),
  kind: z.string(),
  agentId: nullableId,
  targetAgentId: nullableId,
  roomId: nullableId,
  threadId: nullableId,
  runId: nullableId,
  stepId: nullableId,
  approvalId: nullableId,
  /** A payload that is not an object is read as an empty one: the item still shows. */
  payload: z.catch(z.record(z.string(), z.unknown()), {}),
  at: isoDate,
});
export type FeedItem = z.infer<typeof feedItemSchema>;

/** Items after a seq, and the workspace's newest seq (where the stream goes on from). */
export const feedPageSchema = z.object({ items: z.array(feedItemSchema), seq: z.number() });
export type FeedPage = z.infer<typeof feedPageSchema>;

/** Messages from each agent to each agent over a range. */
export const talkMatrixSchema = z.object({
  from: isoDate,
  to: isoDate,
  cells: z.array(z.object({ from: z.string(), to: z.string(), count: z.number() })),
});
export type TalkMatrix = z.infer<typeof talkMatrixSchema>;
