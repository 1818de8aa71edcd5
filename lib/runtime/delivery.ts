import { eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentMessages, agentRuns, agents, rooms, workspaces, type AgentRun } from "../db/schema";
import { recordFeed, type FeedItemInput } from "../feed/feed";
import type { ChatSendOutput } from "../tools/chat-send";
import { truncate } from "../text";
import type { EventBus } from "./bus";
import { LEASE_SECONDS } from "./journal";

export const DEFAULT_MAX_HOPS = 6;

export interface Delivery {
  /** Starts the recipient's turn (a run claimed by this process). */
  startRun(runId: string): void;
}

async function maxHops(db: Db, workspaceId: string): Promise<number> {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return ws?.settings.maxHopsPerThread ?? DEFAULT_MAX_HOPS;
}

/**
 * After a successful `chat.send`: journal the message in the world feed
 * (linked to the run and step that sent it) and give every recipient its
 * own governed turn. A chain of agent-to-agent messages is bounded: past the
 * workspace's hop limit the message is kept but wakes nobody, and the feed
 * says why the conversation stopped.
 */
export async function deliverAgentMessage(
  deps: { db: Db; bus: EventBus; instanceId: string; delivery?: Delivery },
  sender: { run: AgentRun; handle: string; stepId: string },
  sent: ChatSendOutput,
  text: string,
): Promise<void> {
  const { db, bus } = deps;
  const { run } = sender;
  const limit = await maxHops(db, run.workspaceId);
  const feed: FeedItemInput[] = [
    {
      workspaceId: run.workspaceId,
      kind: sent.room ? "room_post" : "agent_message",
      agentId: run.agentId,
      targetAgentId: sent.toAgentId ?? null,
      roomId: sent.roomId ?? null,
      threadId: sent.threadId ?? null,
      runId: run.id,
      stepId: sender.stepId,
      payload: {
        messageId: sent.messageId,
        from: sender.handle,
        to: sent.to ?? null,
        room: sent.room ?? null,
        recipients: sent.recipients,
        text,
        hop: sent.hop,
        sessionId: run.sessionId,
        trigger: run.trigger,
      },
    },
  ];
  const wake = sent.hop <= limit ? sent.recipientIds : [];
  if (sent.recipientIds.length > 0 && wake.length === 0) {
    feed.push({
      workspaceId: run.workspaceId,
      kind: "thread_limit",
      agentId: run.agentId,
      targetAgentId: sent.toAgentId ?? null,
      roomId: sent.roomId ?? null,
      threadId: sent.threadId ?? null,
      runId: run.id,
      stepId: sender.stepId,
      payload: {
        reason: `This conversation reached ${limit} hops between agents, the limit of this workspace, so @${sent.recipients.join(", @")} will not answer it.`,
        limit,
      },
    });
  }
  await recordFeed(db, bus, feed);
  if (wake.length === 0 || !deps.delivery) return;

  await wakeAgents(deps, {
    workspaceId: run.workspaceId,
    agentIds: wake,
    trigger: sent.room ? "room_post" : "agent_message",
    threadId: sent.threadId ?? null,
    roomId: sent.roomId ?? null,
    sourceMessageId: sent.messageId,
    inputText: `Message from @${sender.handle}${sent.room ? ` in #${sent.room}` : ""}: ${text}`,
    hop: sent.hop,
  });
}

/** Gives each agent a turn on a message: a run claimed by this process, started at once. */
export async function wakeAgents(
  deps: { db: Db; instanceId: string; delivery?: Delivery },
  input: {
    workspaceId: string;
    agentIds: string[];
    trigger: "agent_message" | "room_post";
    threadId: string | null;
    roomId: string | null;
    sourceMessageId: string;
    inputText: string;
    hop: number;
  },
): Promise<string[]> {
  if (input.agentIds.length === 0 || !deps.delivery) return [];
  const created = await deps.db
    .insert(agentRuns)
    .values(
      input.agentIds.map((agentId) => ({
        workspaceId: input.workspaceId,
        agentId,
        trigger: input.trigger,
        threadId: input.threadId,
        roomId: input.roomId,
        sourceMessageId: input.sourceMessageId,
        inputText: input.inputText,
        hop: input.hop,
        model: sql`(select ${agents.model} from ${agents} where ${agents.id} = ${agentId})`,
        state: "running" as const,
        claimedBy: deps.instanceId,
        leaseExpiresAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
        startedAt: new Date(),
      })),
    )
    .returning({ id: agentRuns.id });
  for (const { id } of created) deps.delivery.startRun(id);
  return created.map((r) => r.id);
}

/**
 * A run woken by another agent answers on the same thread (or in the same
 * room). The answer is shown in the feed but wakes nobody: only an explicit
 * `chat.send` starts another agent's turn.
 */
export async function postReply(deps: { db: Db; bus: EventBus }, run: AgentRun, text: string): Promise<void> {
  if (!run.sourceMessageId || !text.trim()) return;
  const [source] = await deps.db.select().from(agentMessages).where(eq(agentMessages.id, run.sourceMessageId));
  if (!source) return;
  const [me] = await deps.db.select({ handle: agents.handle }).from(agents).where(eq(agents.id, run.agentId));
  const [to] = source.fromAgentId ? await deps.db.select({ id: agents.id, handle: agents.handle }).from(agents).where(inArray(agents.id, [source.fromAgentId])) : [];
  const [reply] = await deps.db
    .insert(agentMessages)
    .values({
      workspaceId: run.workspaceId,
      threadId: source.threadId,
      roomId: source.roomId,
      fromAgentId: run.agentId,
      toAgentId: source.roomId ? null : (to?.id ?? null),
      runId: run.id,
      body: truncate(text, 8000),
      hop: run.hop,
    })
    .returning({ id: agentMessages.id });
  await recordFeed(deps.db, deps.bus, [
    {
      workspaceId: run.workspaceId,
      kind: source.roomId ? "room_post" : "agent_message",
      agentId: run.agentId,
      targetAgentId: source.roomId ? null : (to?.id ?? null),
      roomId: source.roomId,
      threadId: source.threadId,
      runId: run.id,
      payload: {
        messageId: reply!.id,
        from: me?.handle ?? null,
        to: to?.handle ?? null,
        room: source.roomId ? ((await deps.db.select({ name: rooms.name }).from(rooms).where(eq(rooms.id, source.roomId)))[0]?.name ?? null) : null,
        text: truncate(text, 2000),
        reply: true,
        hop: run.hop,
        recipients: [],
        trigger: run.trigger,
      },
    },
  ]);
}
