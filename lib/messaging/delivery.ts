import { eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentMessages, agents, rooms, workspaces, type AgentRun, type TaintSource } from "../db/schema";
import { recordFeed, type FeedItemInput } from "../feed/feed";
import { taintFromAgent } from "../safety/taint";
import type { DeliverWork } from "../tools/types";
import { truncate } from "../text";
import type { EventBus } from "../db/bus";
import { chainOf, createWakeRuns, pausedMessage } from "../runs";

export const DEFAULT_MAX_HOPS = 6;

async function maxHops(db: Db, workspaceId: string): Promise<number> {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return ws?.settings.maxHopsPerThread ?? DEFAULT_MAX_HOPS;
}

/** One feed item per paused agent that a message did not wake, so the feed says why it stayed silent. */
export function pausedFeedItems(
  input: { workspaceId: string; fromAgentId?: string | null; runId?: string | null; stepId?: string | null; roomId?: string | null; threadId?: string | null; from: string },
  paused: { id: string; handle: string }[],
): FeedItemInput[] {
  return paused.map((p) => ({
    workspaceId: input.workspaceId,
    kind: "agent_paused" as const,
    agentId: input.fromAgentId ?? null,
    targetAgentId: p.id,
    roomId: input.roomId ?? null,
    threadId: input.threadId ?? null,
    runId: input.runId ?? null,
    stepId: input.stepId ?? null,
    payload: { agent: p.handle, from: input.from, reason: `${pausedMessage(p.handle)} The message from ${input.from} was kept, but it will not answer.` },
  }));
}

/**
 * Delivers a message a run sent (a tool's `deliver` follow-up): journal it
 * in the world feed (linked to the run and step that sent it) and give every
 * recipient that is not paused its own governed turn, on behalf of the same
 * person, with the sender added to the chain. What a recipient is handed is
 * untrusted: its run starts tainted with the sender and with everything that
 * had reached the sender's run (`taint`, as it stood when sending). A chain of agent-to-agent
 * messages is bounded: past the workspace's hop limit the message is kept
 * but wakes nobody, and the feed says why the conversation stopped. Returns
 * the runs created, claimed by this process, for the caller to start.
 */
export async function deliverAgentMessage(
  deps: { db: Db; bus: EventBus; instanceId: string },
  sender: { run: AgentRun; handle: string; stepId: string; taint: readonly TaintSource[] },
  sent: DeliverWork,
): Promise<string[]> {
  const { db, bus } = deps;
  const { run } = sender;
  const limit = await maxHops(db, run.workspaceId);
  const feed: FeedItemInput[] = [
    messageFeedItem(run, {
      stepId: sender.stepId,
      messageId: sent.messageId,
      from: sender.handle,
      to: sent.to ?? null,
      toAgentId: sent.toAgentId ?? null,
      room: sent.room ?? null,
      roomId: sent.roomId ?? null,
      threadId: sent.threadId ?? null,
      recipients: sent.recipients,
      text: sent.text,
      hop: sent.hop,
    }),
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
  const where = { workspaceId: run.workspaceId, fromAgentId: run.agentId, runId: run.id, stepId: sender.stepId, roomId: sent.roomId, threadId: sent.threadId, from: `@${sender.handle}` };
  feed.push(...pausedFeedItems(where, sent.paused));
  const woken =
    wake.length === 0
      ? { runIds: [], paused: [] }
      : await createWakeRuns(db, {
          workspaceId: run.workspaceId,
          agentIds: wake,
          trigger: sent.room ? "room_post" : "agent_message",
          threadId: sent.threadId ?? null,
          roomId: sent.roomId ?? null,
          sourceMessageId: sent.messageId,
          inputText: `Message from @${sender.handle}${sent.room ? ` in #${sent.room}` : ""}: ${sent.text}`,
          hop: sent.hop,
          chain: { ...chainOf(run), via: [...run.via, sender.handle] },
          taint: taintFromAgent(sender.taint, sender.handle),
          owner: deps.instanceId,
        });
  // Paused between the tool's look and the runs' creation: the feed says so too.
  const late = woken.paused.filter((p) => !sent.paused.some((q) => q.id === p.id));
  feed.push(...pausedFeedItems(where, late));
  await recordFeed(db, bus, feed);
  return woken.runIds;
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
  const room = source.roomId ? ((await deps.db.select({ name: rooms.name }).from(rooms).where(eq(rooms.id, source.roomId)))[0]?.name ?? null) : null;
  await recordFeed(deps.db, deps.bus, [
    messageFeedItem(run, {
      stepId: null,
      messageId: reply!.id,
      from: me?.handle ?? null,
      to: to?.handle ?? null,
      toAgentId: source.roomId ? null : (to?.id ?? null),
      room,
      roomId: source.roomId,
      threadId: source.threadId,
      recipients: [],
      text: truncate(text, 2000),
      hop: run.hop,
      reply: true,
    }),
  ]);
}

/** The feed item of a message an agent's run sent to another agent or a room: a message of its own, or a reply. */
function messageFeedItem(
  run: AgentRun,
  m: {
    stepId: string | null;
    messageId: string;
    from: string | null;
    to: string | null;
    toAgentId: string | null;
    room: string | null;
    roomId: string | null;
    threadId: string | null;
    recipients: string[];
    text: string;
    hop: number;
    reply?: boolean;
  },
): FeedItemInput {
  return {
    workspaceId: run.workspaceId,
    kind: m.roomId ? "room_post" : "agent_message",
    agentId: run.agentId,
    targetAgentId: m.toAgentId,
    roomId: m.roomId,
    threadId: m.threadId,
    runId: run.id,
    stepId: m.stepId,
    payload: {
      messageId: m.messageId,
      from: m.from,
      to: m.to,
      room: m.room,
      recipients: m.recipients,
      text: m.text,
      hop: m.hop,
      ...(m.reply ? { reply: true } : { sessionId: run.sessionId }),
      trigger: run.trigger,
    },
  };
}
