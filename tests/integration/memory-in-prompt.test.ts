import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { agentMemories } from "../../lib/db/schema";
import { createOfflineProvider, EARLIER_REPLIES_HEADING, MEMORIES_HEADING } from "../../lib/models/offline";
import type { ModelProvider, ModelRequest } from "../../lib/models/types";
import { createChat } from "../../lib/chats/chats";
import { demoOwner } from "../support/fixtures";
import { makeAgent, routeModel, settle, textOf, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

const REMEMBERED = "From what I remember";

describe("what an agent remembers, in the prompt of a later question", () => {
  const server = useTestServer();
  const requests: ModelRequest[] = [];

  // The real offline model, at full speed, with every request it was sent kept for the test to read.
  beforeAll(() => {
    const offline = createOfflineProvider({ delayMs: 0 });
    const recorded: ModelProvider = { name: "offline", stream: (request) => (requests.push(request), offline.stream(request)) };
    routeModel(server(), "offline", recorded);
  });

  async function newAgentAndChat() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline" });
    const newChat = () => createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    return { s, owner, agent, newChat };
  }

  const repliesOf = (agentId: string) =>
    server().db.select({ content: agentMemories.content, sessionId: agentMemories.sessionId }).from(agentMemories).where(and(eq(agentMemories.agentId, agentId), eq(agentMemories.kind, "reply")));

  /** Asks in the chat and waits until the reply is remembered; returns the answer and the system prompt it was given. */
  async function ask(setup: Awaited<ReturnType<typeof newAgentAndChat>>, sessionId: string, text: string) {
    const before = (await repliesOf(setup.agent.id)).length;
    const { runId } = await setup.s.runtime.startChatRun({ workspaceId: setup.owner.workspaceId, sessionId, userId: setup.owner.id, text });
    const answer = textOf(await waitForRun(setup.s.db, runId));
    await settle(async () => (await repliesOf(setup.agent.id)).length > before);
    return { answer, system: requests.at(-1)!.system };
  }

  it("a plain question asked in chat A, then in chats B and C, gets the help answer each time: A's reply goes under its own heading, not the notes, and no reply quotes another", async () => {
    const setup = await newAgentAndChat();
    const [chatA, chatB, chatC] = [await setup.newChat(), await setup.newChat(), await setup.newChat()];

    const first = await ask(setup, chatA.id, "How do you work?");
    expect(first.answer).toContain("I'm the offline model");

    // The question shares "commands" and "use" with A's reply, so the reply is recalled into B's prompt.
    const second = await ask(setup, chatB.id, "What commands can you use?");
    expect(second.answer).not.toContain(REMEMBERED);
    expect(second.answer).toContain("I'm the offline model");
    expect(second.system).not.toContain(MEMORIES_HEADING);
    const earlier = second.system.slice(second.system.indexOf(EARLIER_REPLIES_HEADING));
    expect(earlier.startsWith(EARLIER_REPLIES_HEADING)).toBe(true);
    expect(earlier).toContain("- I'm the offline model");

    const third = await ask(setup, chatC.id, "Which commands do you use for Slack?");
    expect(third.answer).not.toContain(REMEMBERED);
    expect(third.system).not.toContain(MEMORIES_HEADING);
    expect(third.system).not.toContain(REMEMBERED);
    expect((await repliesOf(setup.agent.id)).map((r) => r.content.includes(REMEMBERED))).toEqual([false, false, false]);
  });

  it("a note is quoted in the chat that wrote it and in a later one; the chat's own reply is not recalled into its prompt, and another chat's reply is never quoted", async () => {
    const setup = await newAgentAndChat();
    const [chatX, chatY] = [await setup.newChat(), await setup.newChat()];

    await ask(setup, chatX.id, "remember the release date is Friday");
    const [reply] = await repliesOf(setup.agent.id);
    expect(reply).toMatchObject({ sessionId: chatX.id, content: expect.stringContaining("the release date is Friday") });

    const sameChat = await ask(setup, chatX.id, "what is the release date?");
    expect(sameChat.answer).toBe(`${REMEMBERED}:\n\n- the release date is Friday`);
    expect(sameChat.system).toContain(`${MEMORIES_HEADING}\n- the release date is Friday`);
    // Chat X's reply is already in its history: the prompt does not carry it again.
    expect(sameChat.system).not.toContain(EARLIER_REPLIES_HEADING);
    expect(sameChat.system).not.toContain(reply!.content.replace(/\s+/g, " "));

    const otherChat = await ask(setup, chatY.id, "what is the release date?");
    expect(otherChat.answer).toBe(`${REMEMBERED}:\n\n- the release date is Friday`);
    expect(otherChat.system).toContain(`${MEMORIES_HEADING}\n- the release date is Friday\n\n${EARLIER_REPLIES_HEADING}\n`);
  });
});
