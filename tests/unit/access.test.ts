import { describe, expect, it } from "vitest";
import {
  assertCanCancelRun,
  assertCanDecideApproval,
  assertCanReadRun,
  assertCanReadChat,
  assertCanSeeSpend,
  assertCanWriteChat,
  canCancelRun,
  canDecideApproval,
  canOpenApprovalRun,
  canReadApproval,
  canReadRun,
  canReadChat,
  canRecallMemory,
  canSeeSpend,
  canWriteChat,
  memoryReaderOf,
  memoryScopeOf,
  type RunFacts,
  type Viewer,
} from "../../lib/access/access";
import { approvalForViewer, creditsForViewer, feedItemForViewer, runEventForViewer, runLinkForViewer } from "../../lib/access/redact";
import type { Role } from "../../lib/db/schema";
import { AppError } from "../../lib/errors";

const ME = "user-me";
const OTHER = "user-other";
const roles: Role[] = ["member", "reviewer", "manager", "owner"];
const as = (role: Role): Viewer => ({ userId: ME, role });

const myChatRun: RunFacts = { userId: ME, trigger: "chat", sessionId: "s-mine" };
const theirChatRun: RunFacts = { userId: OTHER, trigger: "chat", sessionId: "s-theirs" };
const agentRun: RunFacts = { userId: OTHER, trigger: "agent_message", sessionId: null };
const roomRun: RunFacts = { userId: null, trigger: "room_post", sessionId: null };

/** The code an assert throws, or "ok". */
function outcome(assert: () => void): string {
  try {
    assert();
    return "ok";
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

/** One row per role: member, reviewer, manager, owner. */
type Row = [boolean, boolean, boolean, boolean];
const byRole = (check: (role: Role) => boolean): Row => roles.map(check) as Row;

describe("access rules, role × object × relation", () => {
  it.each<[string, (role: Role) => boolean, Row]>([
    ["read own chat", (r) => canReadChat(as(r), { userId: ME }), [true, true, true, true]],
    ["read another person's chat", (r) => canReadChat(as(r), { userId: OTHER }), [false, true, true, true]],
    ["write in own chat", (r) => canWriteChat(as(r), { userId: ME }), [true, true, true, true]],
    ["write in another person's chat", (r) => canWriteChat(as(r), { userId: OTHER }), [false, false, false, false]],
    ["read own chat's run", (r) => canReadRun(as(r), myChatRun), [true, true, true, true]],
    ["read another person's chat run", (r) => canReadRun(as(r), theirChatRun), [false, true, true, true]],
    ["read a run an agent message started", (r) => canReadRun(as(r), agentRun), [true, true, true, true]],
    ["read a run a room post started", (r) => canReadRun(as(r), roomRun), [true, true, true, true]],
    ["cancel own chat's run", (r) => canCancelRun(as(r), myChatRun), [true, true, true, true]],
    ["cancel another person's chat run", (r) => canCancelRun(as(r), theirChatRun), [false, false, true, true]],
    ["cancel a run an agent message started for someone else", (r) => canCancelRun(as(r), agentRun), [false, false, true, true]],
    ["read an approval", (r) => canReadApproval(as(r)), [true, true, true, true]],
    ["open the run behind an approval from another person's chat", (r) => canOpenApprovalRun(as(r), theirChatRun), [false, true, true, true]],
    ["decide an approval", (r) => canDecideApproval(as(r)), [false, true, true, true]],
    ["see spend", (r) => canSeeSpend(as(r)), [false, true, true, true]],
  ])("%s: member, reviewer, manager, owner → %j", (_name, check, expected) => {
    expect(byRole(check)).toEqual(expected);
  });

  it("a chat run whose person is gone is open to reviewers only", () => {
    const orphan: RunFacts = { userId: null, trigger: "chat", sessionId: "s-x" };
    expect(byRole((r) => canReadRun(as(r), orphan))).toEqual([false, true, true, true]);
  });

  it("a run tied to a chat is private whatever its trigger says", () => {
    const odd: RunFacts = { userId: OTHER, trigger: "mission", sessionId: "s-theirs" };
    expect(canReadRun(as("member"), odd)).toBe(false);
  });
});

describe("access refusals: 404 for what may not be known, 403 for what is visible but not allowed", () => {
  it("another member's chat and run do not exist for a member", () => {
    expect(outcome(() => assertCanReadChat(as("member"), { userId: OTHER }))).toBe("not_found:session");
    expect(outcome(() => assertCanWriteChat(as("member"), { userId: OTHER }))).toBe("not_found:session");
    expect(outcome(() => assertCanReadRun(as("member"), theirChatRun))).toBe("not_found:run");
    expect(outcome(() => assertCanCancelRun(as("member"), theirChatRun))).toBe("not_found:run");
  });

  it("a reviewer sees another person's chat but may neither write in it nor stop its run (403)", () => {
    expect(outcome(() => assertCanReadChat(as("reviewer"), { userId: OTHER }))).toBe("ok");
    expect(outcome(() => assertCanWriteChat(as("reviewer"), { userId: OTHER }))).toBe("forbidden:session");
    expect(outcome(() => assertCanCancelRun(as("reviewer"), theirChatRun))).toBe("forbidden:run");
    expect(outcome(() => assertCanCancelRun(as("manager"), theirChatRun))).toBe("ok");
  });

  it("a member sees a run agents started but may not stop it (403); spend and decisions are 403 for members", () => {
    expect(outcome(() => assertCanReadRun(as("member"), agentRun))).toBe("ok");
    expect(outcome(() => assertCanCancelRun(as("member"), agentRun))).toBe("forbidden:run");
    expect(outcome(() => assertCanDecideApproval(as("member")))).toBe("forbidden:role");
    expect(outcome(() => assertCanSeeSpend(as("member")))).toBe("forbidden:role");
    expect(outcome(() => assertCanSeeSpend(as("reviewer")))).toBe("ok");
  });
});

describe("memory scopes", () => {
  const privateOf = (owner: string) => ({ scope: "private" as const, ownerUserId: owner });
  const shared = { scope: "shared" as const, ownerUserId: OTHER };

  it("a private chat recalls its person's private memories and shared ones, never another person's", () => {
    const reader = memoryReaderOf(myChatRun);
    expect(canRecallMemory(reader, privateOf(ME))).toBe(true);
    expect(canRecallMemory(reader, privateOf(OTHER))).toBe(false);
    expect(canRecallMemory(reader, shared)).toBe(true);
  });

  it("a run agents or rooms started recalls shared memories only, even when a person is behind its chain", () => {
    for (const run of [agentRun, { ...roomRun, userId: ME }]) {
      const reader = memoryReaderOf(run);
      expect(canRecallMemory(reader, privateOf(ME))).toBe(false);
      expect(canRecallMemory(reader, privateOf(OTHER))).toBe(false);
      expect(canRecallMemory(reader, shared)).toBe(true);
    }
  });

  it("a private memory whose person is gone is recalled by nobody", () => {
    expect(canRecallMemory(memoryReaderOf({ ...myChatRun, userId: null }), { scope: "private", ownerUserId: null })).toBe(false);
  });

  it("what a private chat writes is private unless saved as shared; what agents and rooms write is shared", () => {
    expect(memoryScopeOf(myChatRun)).toEqual({ scope: "private", ownerUserId: ME, sessionId: "s-mine" });
    expect(memoryScopeOf(myChatRun, true)).toEqual({ scope: "shared", ownerUserId: ME, sessionId: "s-mine" });
    expect(memoryScopeOf(agentRun)).toEqual({ scope: "shared", ownerUserId: OTHER, sessionId: null });
    expect(memoryScopeOf(roomRun, false).scope).toBe("shared");
  });
});

describe("redaction for viewers who may not open a run", () => {
  const started = {
    seq: 1,
    kind: "run_started",
    runId: "run-theirs",
    stepId: "step-1",
    payload: { agent: "scout", trigger: "chat", sessionId: "s-theirs", hop: 0, text: "my salary is 1234", note: "anything new" },
  };

  it("a feed item about another person's chat run keeps who and what kind, and loses text, ids and unknown fields", () => {
    expect(feedItemForViewer(as("member"), started, theirChatRun)).toEqual({
      seq: 1,
      kind: "run_started",
      runId: null,
      stepId: null,
      payload: { agent: "scout", trigger: "chat", hop: 0 },
    });
    expect(feedItemForViewer(as("reviewer"), started, theirChatRun)).toEqual(started);
    expect(feedItemForViewer(as("member"), started, myChatRun)).toEqual(started);
  });

  it("a feed item naming a run that cannot be found is treated as private", () => {
    expect(feedItemForViewer(as("member"), started, undefined).payload).not.toHaveProperty("text");
  });

  it("an agent's message sent from a private chat keeps its text (the recipient's turn is the world's) but not the chat's ids", () => {
    const sent = {
      kind: "agent_message",
      runId: "run-theirs",
      stepId: "step-2",
      payload: { messageId: "m1", from: "atlas", to: "scout", text: "hi there", sessionId: "s-theirs", hop: 1 },
    };
    expect(feedItemForViewer(as("member"), sent, theirChatRun)).toEqual({
      kind: "agent_message",
      runId: null,
      stepId: null,
      payload: { from: "atlas", to: "scout", text: "hi there", hop: 1 },
    });
  });

  it("an approval from another person's chat keeps the action and loses the way into the chat", () => {
    const approval = { id: "a1", runId: "run-theirs", stepId: "step-1", sessionId: "s-theirs", taintSources: [{ source: "web:x", stepId: "step-0" }], tool: "slack.post" };
    expect(approvalForViewer(as("member"), approval, theirChatRun)).toEqual({
      id: "a1",
      runId: null,
      stepId: null,
      sessionId: null,
      taintSources: [{ source: "web:x", stepId: null }],
      tool: "slack.post",
      canOpenRun: false,
    });
    expect(approvalForViewer(as("reviewer"), approval, theirChatRun)).toEqual({ ...approval, canOpenRun: true });
  });

  it("run links, credits and usage events follow the same rules", () => {
    expect(runLinkForViewer(as("member"), "run-theirs", theirChatRun)).toBeNull();
    expect(runLinkForViewer(as("member"), "run-agent", agentRun)).toBe("run-agent");
    expect(creditsForViewer(as("member"), 42)).toBeNull();
    expect(creditsForViewer(as("reviewer"), 42)).toBe(42);
    const usage = { type: "usage", payload: { model: "m", inputTokens: 1, outputTokens: 2, credits: 7, estimated: false } };
    expect(runEventForViewer(as("member"), usage).payload).toEqual({ model: "m", inputTokens: 1, outputTokens: 2, credits: null, estimated: false });
    expect(runEventForViewer(as("manager"), usage)).toBe(usage);
    const text = { type: "text", payload: { delta: "hi" } };
    expect(runEventForViewer(as("member"), text)).toBe(text);
  });
});
