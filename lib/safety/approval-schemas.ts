/** What the approvals API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { decisionChannels } from "../decision-channels";
import { id, isoDate, jsonObject, nullableDate, storedJson } from "../shared-schemas";

export const approvalStatusSchema = z.enum(["pending", "approved", "rejected", "expired", "withdrawn"]);

export const judgeVerdictSchema = z.object({ verdict: z.enum(["allow", "deny", "no_answer"]), reason: z.string(), model: z.string(), decided: z.boolean() });

export const notificationChannelSchema = z.enum(["email", "push", "slack"]);
export const notificationStepSchema = z.enum(["asked", "escalated_managers", "escalated_owners", "reminder_half", "reminder_late"]);

/** One notification about a request: to whom, how, why, when, and what went wrong if it did not go. */
export const notifiedSchema = z.object({
  /** Null for a post to the workspace's Slack channel, whose name is then `name`. */
  userId: z.nullable(id),
  name: z.string(),
  channel: notificationChannelSchema,
  step: notificationStepSchema,
  status: z.enum(["queued", "sending", "sent", "failed", "dropped"]),
  at: isoDate,
  error: z.nullable(z.string()),
});
export type Notified = z.infer<typeof notifiedSchema>;

/** One approval as a viewer may see it (lib/access/redact.ts decides what is left out). */
export const approvalItemSchema = z.object({
  id,
  /** Run, step and chat are null for viewers who may not open the run behind the approval. */
  runId: z.nullable(id),
  stepId: z.nullable(id),
  category: z.string(),
  /** A tainted call's own category apart from its taint (a tainted send outside is also "external_send"); else null. */
  baseCategory: z.optional(z.nullable(z.string())),
  tool: z.string(),
  callId: z.string(),
  input: jsonObject,
  editedInput: z.nullable(jsonObject),
  /** JSON Schema of the tool's input (null for a tool no longer known): the edit form is built from it. */
  inputSchema: z.nullable(jsonObject),
  preview: storedJson(z.object({ title: z.string(), fields: z.array(z.object({ label: z.string(), value: z.string() })), body: z.optional(z.string()), diff: z.optional(z.string()) })),
  taintSources: z.array(z.object({ source: z.string(), stepId: z.nullable(id) })),
  status: approvalStatusSchema,
  reason: z.nullable(z.string()),
  expiresAt: isoDate,
  createdAt: isoDate,
  decidedAt: nullableDate,
  decidedBy: z.nullable(z.string()),
  /** Where the person decided it: the inbox, the chat that asked, or the run's page. */
  decidedVia: z.optional(z.nullable(z.enum(decisionChannels))),
  /** The governor's judge on this request, when one was asked (and whether that decided it). */
  judgeVerdict: z.optional(z.nullable(judgeVerdictSchema)),
  requestedBy: z.nullable(z.string()),
  requestedByUserId: z.nullable(id),
  sessionId: z.nullable(id),
  /** The person behind the chain that led to this request, and the agents it came through before the asking one. */
  onBehalfOf: z.nullable(z.string()),
  onBehalfOfUserId: z.nullable(id),
  via: z.array(z.string()),
  /** The conversation that began the chain: a chat session or a room. */
  originSessionId: z.nullable(id),
  originRoomId: z.nullable(id),
  originRoom: z.nullable(z.string()),
  /** Whether this workspace needs someone other than `onBehalfOf` to approve it. */
  fourEyes: z.boolean(),
  /** Pending only: identical requests (same agent, tool and input) shown as this one. */
  identical: z.optional(z.object({ count: z.number(), ids: z.array(id) })),
  canOpenRun: z.boolean(),
  /** The mission this request's run is a node of. */
  missionId: z.optional(z.nullable(id)),
  agent: z.object({ id, handle: z.string(), name: z.string(), color: z.string() }),
  /** Who has been told about it, through which channel, why and when (and a channel's error when one failed). */
  notified: z.optional(z.array(notifiedSchema)),
});
export type ApprovalItem = z.infer<typeof approvalItemSchema>;

export const approvalListSchema = z.object({ approvals: z.array(approvalItemSchema) });
export const approvalOneSchema = z.object({ approval: approvalItemSchema });

/** A team of one: whether the owner may approve their own requests now (GET/PUT /api/approvals/own-while-alone). */
export const soloApprovalSchema = z.object({ alone: z.boolean(), on: z.boolean(), byName: z.nullable(z.string()), at: z.nullable(z.string()) });
export type SoloApproval = z.infer<typeof soloApprovalSchema>;

/** What a batch decision did to each request (POST /api/approvals/decisions). */
export const batchResultsSchema = z.object({
  results: z.array(
    z.object({
      id,
      status: z.enum(["pending", "approved", "rejected", "expired", "withdrawn", "not_found"]),
      code: z.optional(z.string()),
      message: z.optional(z.string()),
    }),
  ),
});
export type BatchResults = z.infer<typeof batchResultsSchema>;
