import { describe, expect, it } from "vitest";
import type { Viewer } from "../../lib/access/access";
import { feedItemsForViewer } from "../../lib/access/reads";
import { runFactsCache } from "../../lib/access/run-facts-cache";
import { appendFeedItems, insertFeedItems, notifyFeed, readFeed, type FeedFilter, type FeedItemInput } from "../../lib/feed/feed";
import { feedWriterFor } from "../../lib/feed/feed-writer";
import { createChatRun } from "../../lib/runs";
import { textTurn } from "../../lib/models/scripted";
import { createChat } from "../../lib/chats/chats";
import type { Server } from "../../lib/server";
import { followFeed } from "../support/feed";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, useScriptedModel, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

/** Follows the feed; heartbeats are far enough apart that only notifications and hand-overs carry the stream. */
const follow = (s: Server, options: { workspaceId: string; viewer: Viewer; afterSeq: number; filter?: FeedFilter }, count: number) =>
  followFeed({ db: s.db, bus: s.bus, ...options, heartbeatMs: 60_000 }, count);

const item = (workspaceId: string, kind: FeedItemInput["kind"], extra: Partial<FeedItemInput>): FeedItemInput => ({ workspaceId, kind, payload: {}, ...extra });

describe("the feed as an event stream", () => {
  const server = useTestServer();

  it("hands this process's items over from memory, reads what another writer committed once for every stream, and gives each viewer what a read of the table gives", async () => {
    const s = server();
    const { workspaceId, ...owner } = await demoOwner(s.db);
    const [a, b] = await Promise.all([makeUser(s.db, workspaceId, "member"), makeUser(s.db, workspaceId, "member")]);
    const agent = await makeAgent(s.db, workspaceId, { model: "scripted" });
    const other = await makeAgent(s.db, workspaceId, { model: "scripted" });
    // A private chat of member A: member B may not open its run, so its items reach B without text or ids.
    useScriptedModel(s, [textTurn(["Kept between us."])]);
    const session = await createChat(s.db, { workspaceId, userId: a.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId, sessionId: session.id, userId: a.id, text: "a private plan" });
    await waitForRun(s.db, runId);
    await s.runtime.drain();
    const start = (await readFeed(s.db, workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;

    const filter: FeedFilter = { agent: agent.id };
    const asB: Viewer = { userId: b.id, role: "member" };
    const written: FeedItemInput[] = [
      item(workspaceId, "run_started", { agentId: agent.id, runId, payload: { agent: "x", text: "the plan, step 1", sessionId: session.id } }),
      item(workspaceId, "agent_message", { agentId: other.id, targetAgentId: agent.id, payload: { text: "to the agent" } }),
      item(workspaceId, "agent_message", { agentId: other.id, payload: { text: "not about the agent" } }),
      item(workspaceId, "run_finished", { agentId: agent.id, runId, payload: { state: "succeeded", text: "the plan, done" } }),
    ];
    const expectedCount = 3 * 2; // three of every four match the filter; the items are written twice below

    const memory = await follow(s, { workspaceId, viewer: asB, afterSeq: start, filter }, expectedCount);
    const owners = await follow(s, { workspaceId, viewer: { userId: owner.id, role: "owner" }, afterSeq: start }, written.length * 2);
    await Promise.all([memory.opened, owners.opened]);

    // Through this process's writer (one item per append, so they share flushes), then by another writer: a
    // transaction of its own and a notification that names no writer here.
    const writer = feedWriterFor(s.db, s.bus);
    const readsBefore = writer.stats.reads;
    await Promise.all(written.map((w) => appendFeedItems(s.db, s.bus, [w])));
    const elsewhere = await s.db.transaction((tx) => insertFeedItems(tx, written));
    await notifyFeed(s.bus, elsewhere);

    const [fromMemory, ownerSaw] = await Promise.all([memory.done, owners.done]);
    // The two streams from memory were handed the other writer's items by one read of the process's writer.
    expect(writer.stats.reads - readsBefore).toBe(1);
    const table = await readFeed(s.db, workspaceId, start, filter, 10_000);
    const expected = await feedItemsForViewer(s.db, workspaceId, asB, table);
    expect(expected).toHaveLength(expectedCount);
    expect(fromMemory.items).toEqual(expected);
    // Member B: the private run's items lose their text and ids; the world's messages keep theirs.
    const started = fromMemory.items.find((i) => i.kind === "run_started")!;
    expect(started).toMatchObject({ runId: null, stepId: null });
    expect(started.payload).not.toHaveProperty("text");
    expect(fromMemory.items.find((i) => i.kind === "agent_message")!.payload.text).toBe("to the agent");
    // The owner sees everything as written.
    expect(ownerSaw.items).toEqual(await readFeed(s.db, workspaceId, start, {}, 10_000));

    // What each stream read itself: only the backlog when it opened. The run's facts are read once for the process,
    // not per stream and batch.
    const feedReads = (q: string[]) => q.filter((sql) => /from "feed_items"/.test(sql)).length;
    expect(feedReads(fromMemory.queries)).toBe(1);
    expect(feedReads(ownerSaw.queries)).toBe(1);
    expect(fromMemory.queries.filter((sql) => /from "agent_runs"/.test(sql)).length).toBeLessThanOrEqual(1);
  });

  it("reads who may open the runs named by a batch from another process once for the batch, not once per run", async () => {
    const s = server();
    const { workspaceId, ...owner } = await demoOwner(s.db);
    const [a, b] = await Promise.all([makeUser(s.db, workspaceId, "member"), makeUser(s.db, workspaceId, "member")]);
    // Private chats of member A, started as another process would: this process knows nothing of their runs.
    const runs: { runId: string; sessionId: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const session = await createChat(s.db, { workspaceId, userId: a.id, agent: { handle: "scout" } });
      const { runId } = await createChatRun(s.db, { workspaceId, sessionId: session.id, userId: a.id, text: `plan ${i}`, owner: "another-process" });
      runs.push({ runId, sessionId: session.id });
    }
    const start = (await readFeed(s.db, workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;
    const asB: Viewer = { userId: b.id, role: "member" };
    const asOwner: Viewer = { userId: owner.id, role: "owner" };
    const streams = [follow(s, { workspaceId, viewer: asB, afterSeq: start }, runs.length), follow(s, { workspaceId, viewer: asOwner, afterSeq: start }, runs.length)];
    await Promise.all(streams.map((f) => f.opened));

    const written = runs.map(({ runId, sessionId }) => item(workspaceId, "run_started", { agentId: null, runId, payload: { text: "the plan", sessionId } }));
    // Counted by the process's cache of run facts: on PostgreSQL the other writer's notification arrives on the
    // listening connection, outside any code of this test, so the statements sent cannot be recorded from here.
    const facts = runFactsCache(s.db);
    const readsBefore = facts.stats.reads;
    const elsewhere = await s.db.transaction((tx) => insertFeedItems(tx, written));
    await notifyFeed(s.bus, elsewhere);
    const [seenByB, seenByOwner] = await Promise.all([streams[0]!.done, streams[1]!.done]);
    expect(facts.stats.reads - readsBefore).toBe(1);
    // Each viewer still gets what the rule gives: B, none of A's private runs; the owner, all of them as written.
    const table = await readFeed(s.db, workspaceId, start, {}, 10_000);
    expect(seenByB.items).toEqual(await feedItemsForViewer(s.db, workspaceId, asB, table));
    expect(seenByB.items.every((i) => i.runId === null && !("text" in i.payload))).toBe(true);
    expect(seenByOwner.items).toEqual(table);
  });
});
