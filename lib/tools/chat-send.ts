import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { agentMessages, agents, agentThreads, roomMembers, rooms } from "../db/schema";
import { ToolError, type ToolDefinition } from "./types";

const handle = z
  .string()
  .trim()
  .transform((v) => v.replace(/^[@#]/, "").toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9_-]{1,40}$/, "a handle or room name of letters, digits, - and _"));

const chatSendInput = z
  .object({
    to: handle.optional().describe("Handle of the agent to message, e.g. scout."),
    room: handle.optional().describe("Name of the room to post in, e.g. ops."),
    message: z.string().trim().min(1).max(4000),
  })
  .refine((v) => (v.to ? 1 : 0) + (v.room ? 1 : 0) === 1, "Give exactly one of `to` or `room`.");

type ChatSendInput = z.infer<typeof chatSendInput>;

export interface ChatSendOutput {
  messageId: string;
  to?: string;
  toAgentId?: string;
  room?: string;
  roomId?: string;
  recipients: string[];
  recipientIds: string[];
  /** Handles of addressed agents that are paused: they will not answer. */
  paused: string[];
  pausedIds: string[];
  hop: number;
  threadId?: string;
  summary: string;
}

export const chatSendTool: ToolDefinition<ChatSendInput, ChatSendOutput> = {
  name: "chat.send",
  description:
    "Send a message to another agent of your workspace (`to`: its handle) or post in a room (`room`: its name). The message is stored and shows in the world feed.",
  input: chatSendInput,
  effects: ["sends_internal"],
  taint: () => null,
  preview: (input) => ({
    title: input.room ? "Post in a room" : "Message an agent",
    fields: [input.room ? { label: "Room", value: `#${input.room}` } : { label: "To", value: `@${input.to}` }],
    body: input.message,
  }),
  // The runtime delivers the message: a feed item, and a turn for each recipient that is not paused.
  after: (_ctx, input, output) => [
    {
      kind: "deliver",
      messageId: output.messageId,
      text: input.message,
      to: output.to,
      toAgentId: output.toAgentId,
      room: output.room,
      roomId: output.roomId,
      threadId: output.threadId,
      recipients: output.recipients,
      recipientIds: output.recipientIds,
      paused: output.pausedIds.map((id, i) => ({ id, handle: output.paused[i]! })),
      hop: output.hop,
    },
  ],
  async execute(ctx, input) {
    if (input.to) {
      if (input.to === ctx.agentHandle) throw new ToolError("You cannot send a message to yourself.");
      const [target] = await ctx.db
        .select({ id: agents.id, handle: agents.handle, status: agents.status })
        .from(agents)
        .where(and(eq(agents.workspaceId, ctx.workspaceId), eq(agents.handle, input.to)));
      if (!target) throw new ToolError(`There is no agent @${input.to} in this workspace.`);
      const [low, high] = [ctx.agentId, target.id].sort() as [string, string];
      const [thread] = await ctx.db
        .insert(agentThreads)
        .values({ workspaceId: ctx.workspaceId, agentLowId: low, agentHighId: high })
        .onConflictDoUpdate({
          target: [agentThreads.workspaceId, agentThreads.agentLowId, agentThreads.agentHighId],
          set: { updatedAt: new Date(), hops: sql`${agentThreads.hops} + 1` },
        })
        .returning({ id: agentThreads.id, hops: agentThreads.hops });
      const [message] = await ctx.db
        .insert(agentMessages)
        .values({
          workspaceId: ctx.workspaceId,
          threadId: thread!.id,
          fromAgentId: ctx.agentId,
          toAgentId: target.id,
          runId: ctx.runId,
          stepId: ctx.stepId,
          body: input.message,
          hop: ctx.hop + 1,
        })
        .returning({ id: agentMessages.id });
      const paused = target.status === "paused";
      return {
        messageId: message!.id,
        to: target.handle,
        toAgentId: target.id,
        recipients: paused ? [] : [target.handle],
        recipientIds: paused ? [] : [target.id],
        paused: paused ? [target.handle] : [],
        pausedIds: paused ? [target.id] : [],
        hop: ctx.hop + 1,
        threadId: thread!.id,
        summary: paused ? `@${target.handle} is paused: the message was kept, but it will not answer until it is resumed.` : `Sent to @${target.handle}.`,
      };
    }
    const [room] = await ctx.db
      .select({ id: rooms.id, name: rooms.name })
      .from(rooms)
      .where(and(eq(rooms.workspaceId, ctx.workspaceId), eq(rooms.name, input.room!)));
    if (!room) throw new ToolError(`There is no room #${input.room} in this workspace.`);
    const members = await ctx.db
      .select({ id: agents.id, handle: agents.handle, status: agents.status })
      .from(roomMembers)
      .innerJoin(agents, eq(agents.id, roomMembers.agentId))
      .where(eq(roomMembers.roomId, room.id));
    const [message] = await ctx.db
      .insert(agentMessages)
      .values({ workspaceId: ctx.workspaceId, roomId: room.id, fromAgentId: ctx.agentId, runId: ctx.runId, stepId: ctx.stepId, body: input.message, hop: ctx.hop + 1 })
      .returning({ id: agentMessages.id });
    const others = members.filter((m) => m.id !== ctx.agentId && m.status !== "paused");
    const paused = members.filter((m) => m.id !== ctx.agentId && m.status === "paused");
    const pausedNote = paused.length ? ` ${paused.map((m) => `@${m.handle}`).join(", ")} ${paused.length === 1 ? "is" : "are"} paused and will not answer.` : "";
    return {
      messageId: message!.id,
      room: room.name,
      roomId: room.id,
      recipients: others.map((m) => m.handle),
      recipientIds: others.map((m) => m.id),
      paused: paused.map((m) => m.handle),
      pausedIds: paused.map((m) => m.id),
      hop: ctx.hop + 1,
      summary: (others.length ? `Posted in #${room.name} to ${others.map((m) => `@${m.handle}`).join(", ")}.` : `Posted in #${room.name}; no other agent there will answer.`) + pausedNote,
    };
  },
};
