import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as decisionRoute } from "../../app/api/approvals/[id]/decision/route";
import { GET as listRoute } from "../../app/api/approvals/route";
import { approvals, outboxMessages, steps } from "../../lib/db/schema";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { createChat } from "../../lib/chats/chats";
import { applyRunEvent, emptyTimeline } from "../../components/chat/timeline";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, suspension, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const script = [toolTurn([{ id: "c1", name: "slack.post", input: { channel: "#general", text: "draft text" } }], "Posting."), textTurn(["Done."])];

describe("edit, then approve", () => {
  const server = useTestServer();

  async function suspended() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "post it" });
    const approval = await suspension(s.db, runId);
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    return { s, owner, runId, approval, reviewer };
  }

  it("the inbox gets the tool's input schema, the same one the model sees, to build the edit form", async () => {
    useScriptedModel(server(), script);
    const { s, approval, reviewer } = await suspended();
    const list = await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie: await sessionCookie(s, reviewer) }))).json();
    const item = list.approvals.find((a: { id: string }) => a.id === approval.id);
    expect(item.inputSchema).toMatchObject({
      type: "object",
      properties: { channel: { type: "string" }, text: { type: "string", minLength: 1, maxLength: 4000 } },
      required: ["channel", "text"],
    });
  });

  it("the edited input is what goes out, and the requester's timeline (chat and run page) shows it, not the original", async () => {
    useScriptedModel(server(), script);
    const { s, runId, approval, reviewer } = await suspended();
    const response = await decisionRoute(
      jsonRequest(`/api/approvals/${approval.id}/decision`, {
        method: "POST",
        cookie: await sessionCookie(s, reviewer),
        body: { decision: "approve", via: "chat", input: { channel: "#general", text: "final text" } },
      }),
      params({ id: approval.id }),
    );
    expect(response.status).toBe(200);
    await s.runtime.resumeRun(runId);
    await waitForRun(s.db, runId);
    const [sent] = await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId));
    expect(sent?.body).toBe("final text");
    const [step] = await s.db.select().from(steps).where(eq(steps.id, approval.stepId!));
    expect(step?.input).toEqual({ channel: "#general", text: "final text" });

    const events = await readRunEvents(s.db, runId, 0);
    const decided = events.find((e) => e.type === "approval_decided");
    expect(decided?.payload).toMatchObject({ inputEdited: true, input: { text: "final text" }, preview: { body: "final text" } });
    const timeline = events.reduce(applyRunEvent, emptyTimeline(runId));
    const shown = timeline.items.flatMap((item) => (item.kind === "step" ? [item.step] : []));
    expect(shown).toHaveLength(1);
    // Who decided, when and where, and the input the agent asked for, to show what the reviewer changed.
    expect(shown[0]).toMatchObject({
      status: "succeeded",
      input: { text: "final text" },
      preview: { body: "final text" },
      approval: { inputEdited: true, decidedBy: reviewer.name, via: "chat", decidedAt: decided!.at, askedInput: { channel: "#general", text: "draft text" } },
    });
    const [row] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(row?.decidedVia).toBe("chat");
  });

  it("an approval without an edit leaves the asked input on the timeline and adds nothing to the event", async () => {
    useScriptedModel(server(), script);
    const { s, runId, approval, reviewer } = await suspended();
    const response = await decisionRoute(
      jsonRequest(`/api/approvals/${approval.id}/decision`, { method: "POST", cookie: await sessionCookie(s, reviewer), body: { decision: "approve" } }),
      params({ id: approval.id }),
    );
    expect(response.status).toBe(200);
    await s.runtime.resumeRun(runId);
    await waitForRun(s.db, runId);
    const events = await readRunEvents(s.db, runId, 0);
    const decided = events.find((e) => e.type === "approval_decided");
    expect(decided?.payload).not.toHaveProperty("input");
    const timeline = events.reduce(applyRunEvent, emptyTimeline(runId));
    const step = timeline.items.find((item) => item.kind === "step");
    expect(step?.kind === "step" && step.step.input).toEqual({ channel: "#general", text: "draft text" });
    // Decided with no channel named: the inbox.
    expect(step?.kind === "step" && step.step.approval).toMatchObject({ decidedBy: reviewer.name, via: "inbox" });
    expect(step?.kind === "step" && step.step.approval?.askedInput).toBeUndefined();
  });

  it("a decision from a channel that does not exist is refused and changes nothing", async () => {
    useScriptedModel(server(), script);
    const { s, approval, reviewer } = await suspended();
    const response = await decisionRoute(
      jsonRequest(`/api/approvals/${approval.id}/decision`, { method: "POST", cookie: await sessionCookie(s, reviewer), body: { decision: "approve", via: "carrier pigeon" } }),
      params({ id: approval.id }),
    );
    expect(response.status).toBe(400);
    const [row] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(row).toMatchObject({ status: "pending", decidedVia: null, decidedByUserId: null });
  });
});
