/** What the chat sessions API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";

export const chatSummarySchema = z.object({
  id,
  userId: z.nullable(id),
  title: z.string(),
  agent: z.object({ id, handle: z.string(), name: z.string(), color: z.string(), model: z.string() }),
  createdAt: isoDate,
  updatedAt: isoDate,
  fresh: z.boolean(),
});
export type ChatListItem = z.infer<typeof chatSummarySchema>;

export const chatListSchema = z.object({ sessions: z.array(chatSummarySchema) });

export const storedRunSchema = z.object({
  id,
  state: z.string(),
  error: z.nullable(z.string()),
  errorCode: z.nullable(z.string()),
  lastSeq: z.number(),
  /** Null for viewers who may not see spend. */
  credits: z.nullable(z.number()),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Prompt tokens read from the provider's cache, besides `inputTokens`. */
  cacheReadTokens: z.number(),
});

export const storedStepSchema = z.object({
  id,
  callId: z.string(),
  tool: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  status: z.string(),
  error: z.nullable(z.string()),
  taint: z.array(z.string()),
  position: z.number(),
});

export const chatMessageSchema = z.object({
  id,
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  createdAt: isoDate,
  run: z.nullable(storedRunSchema),
  steps: z.array(storedStepSchema),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type StoredRun = z.infer<typeof storedRunSchema>;
export type StoredStep = z.infer<typeof storedStepSchema>;

export const chatHistorySchema = z.object({
  session: chatSummarySchema,
  messages: z.array(chatMessageSchema),
  /** Why the chat's agent cannot answer now (a spent monthly budget), in a sentence; null when it can. */
  budgetStop: z.optional(z.nullable(z.string())),
  /** The name of the person whose chat it is, when the viewer is someone else (a reviewer); null for one's own. */
  ownerName: z.optional(z.nullable(z.string())),
});
export type ChatHistory = z.infer<typeof chatHistorySchema>;

export const chatRenamedSchema = z.object({ id, title: z.string() });

/** A message was taken and its reply is being written by this run. */
export const chatRunStartedSchema = z.object({ runId: id });

/** The header naming the run whose events the answer to a chat message carries, when asked for as an event stream. */
export const RUN_ID_HEADER = "clawdeck-run-id";
