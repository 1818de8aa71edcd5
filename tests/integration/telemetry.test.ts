import { and, asc, eq } from "drizzle-orm";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { GET as getTelemetry, PUT as putTelemetry } from "../../app/api/workspace/telemetry/route";
import { POST as createCrewRoute } from "../../app/api/crews/route";
import { createChat } from "../../lib/chats/chats";
import { agentRuns, approvals, auditLog, missionRuns, steps, usageEvents, type Agent } from "../../lib/db/schema";
import { parseEnv } from "../../lib/env";
import { createScriptedModel, textTurn, toolTurn } from "../../lib/models/scripted";
import { spanIdOf, traceIdOf } from "../../lib/telemetry/ids";
import { startTelemetry, stopTelemetry, telemetryOf } from "../../lib/telemetry/telemetry";
import { approvalSteps } from "../support/approvals";
import { demoOwner, makeUser } from "../support/fixtures";
import { closedPortUrl, startOtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { getRunRow, makeAgent, routeModel, settle, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

const receiver = await startOtlpReceiver();
const collector = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20otel-test", OTEL_SERVICE_NAME: "clawdeck-test" };
const CONTENT_KEYS = ["gen_ai.system_instructions", "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"];

describe("OpenTelemetry: runs exported as traces to the operator's collector", () => {
  const server = useTestServer({ env: collector });
  const { reviewerChat, pendingApprovalOf, decide } = approvalSteps(server);
  afterAll(() => receiver.close());

  /** The spans of a run once its own span arrived: the run's, and its model and tool calls'. */
  async function exported(runId: string) {
    const s = server();
    const run = await settle(async () => {
      await telemetryOf(s.db)!.flush();
      return receiver.spans.find((span) => span.name.startsWith("invoke_agent") && span.attributes["clawdeck.run.id"] === runId);
    });
    const children = receiver.spans.filter((span) => span.parentSpanId === run.spanId && span.traceId === run.traceId);
    return { run, models: children.filter((c) => c.name.startsWith("chat ")), tools: children.filter((c) => c.name.startsWith("execute_tool ")) };
  }

  async function chat(agent: Agent, text: string) {
    const s = server();
    const owner = await demoOwner(s.db);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text });
    await waitForRun(s.db, runId);
    return { runId, session, owner };
  }

  /** Exports this server's runs as `vars` say from here on (as a restart with them would), until the test ends. */
  async function exportAs(vars: Record<string, string>) {
    const s = server();
    await stopTelemetry(s.db);
    await startTelemetry(s.db, parseEnv(vars));
    onTestFinished(async () => {
      await stopTelemetry(s.db);
      await startTelemetry(s.db, parseEnv(collector));
    });
  }

  const contentsOf = (spans: ReceivedSpan[]) => spans.flatMap((span) => CONTENT_KEYS.filter((key) => key in span.attributes));

  it("a run is a span with a child per model call (GenAI attributes, the ledger's tokens) and per tool call, with no contents by default", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "scripted-otel" });
    useScriptedModel(
      s,
      [toolTurn([{ id: "call_1", name: "memory.remember", input: { text: "launch-marker-7 is on Friday" } }], "Noting.", { inputTokens: 120, outputTokens: 7 }), textTurn(["Done."], { inputTokens: 200, outputTokens: 10 })],
      "scripted-otel",
    );
    const { runId, session } = await chat(agent, "remember that launch-marker-7 is on Friday");
    const { run, models, tools } = await exported(runId);

    expect(run.traceId).toBe(traceIdOf({ runId }));
    expect(run.spanId).toBe(spanIdOf("run", runId));
    expect(run.parentSpanId).toBe("");
    expect(run.service).toBe("clawdeck-test");
    expect(run.name).toBe(`invoke_agent ${agent.handle}`);
    expect(run.status.code).toBe(1);
    expect(run.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": agent.id,
      "gen_ai.agent.name": agent.handle,
      "gen_ai.request.model": "scripted-otel",
      "gen_ai.usage.input_tokens": 320,
      "gen_ai.usage.output_tokens": 17,
      "gen_ai.conversation.id": session.id,
      "clawdeck.workspace.id": owner.workspaceId,
      "clawdeck.run.id": runId,
      "clawdeck.run.trigger": "chat",
      "clawdeck.run.state": "succeeded",
      "clawdeck.run.model_calls": 2,
      "clawdeck.run.credits": (await getRunRow(s.db, runId)).credits,
    });
    const row = await getRunRow(s.db, runId);
    expect([run.startMs, run.endMs]).toEqual([row.startedAt!.getTime(), row.finishedAt!.getTime()]);

    const ledger = await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId)).orderBy(asc(usageEvents.id));
    expect(ledger.map((l) => [l.inputTokens, l.outputTokens])).toEqual([
      [120, 7],
      [200, 10],
    ]);
    const byNumber = [...models].sort((a, b) => Number(a.attributes["clawdeck.model_call.number"]) - Number(b.attributes["clawdeck.model_call.number"]));
    expect(byNumber.map((m) => m.attributes)).toEqual(
      ledger.map((l, i) => ({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-otel",
        "gen_ai.usage.input_tokens": l.inputTokens,
        "gen_ai.usage.output_tokens": l.outputTokens,
        "gen_ai.response.finish_reasons": [i === 0 ? "tool_use" : "end_turn"],
        "clawdeck.run.id": runId,
        "clawdeck.model_call.number": i,
      })),
    );
    expect(byNumber.map((m) => [m.name, m.kind, m.spanId])).toEqual([0, 1].map((n) => ["chat scripted-otel", 3, spanIdOf("model_call", `${runId}:${n}`)]));

    const [step] = await s.db.select().from(steps).where(eq(steps.runId, runId));
    expect(tools).toHaveLength(1);
    expect(tools[0]!.name).toBe("execute_tool memory.remember");
    expect(tools[0]!.spanId).toBe(spanIdOf("tool_call", step!.id));
    expect([tools[0]!.startMs, tools[0]!.endMs]).toEqual([step!.startedAt!.getTime(), step!.finishedAt!.getTime()]);
    expect(tools[0]!.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "memory.remember",
      "gen_ai.tool.call.id": "call_1",
      "clawdeck.run.id": runId,
      "clawdeck.step.id": step!.id,
      "clawdeck.tool.status": "succeeded",
      "clawdeck.approval.required": false,
    });
    // No prompt, reply, tool input or output left the server.
    expect(contentsOf([run, ...models, ...tools])).toEqual([]);
    expect(JSON.stringify(receiver.spans)).not.toContain("launch-marker-7");
    expect(receiver.requests.every((r) => r.path === "/v1/traces" && r.contentType === "application/x-protobuf" && r.headers.authorization === "Bearer otel-test")).toBe(true);
  });

  it("a tool call that waited for a reviewer carries the wait and the decision", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "scripted-gated", tools: ["slack.post"] });
    useScriptedModel(s, [toolTurn([{ id: "call_slack", name: "slack.post", input: { channel: "#general", text: "hello" } }], "Posting."), textTurn(["Posted."])], "scripted-gated");
    const { runId } = await reviewerChat(agent.id, "post hello to #general");
    const pending = await pendingApprovalOf(agent.id);
    expect((await decide(owner, pending.id)).status).toBe(200);
    await waitForRun(s.db, runId);
    const { tools } = await exported(runId);
    const [decided] = await s.db.select().from(approvals).where(eq(approvals.id, pending.id));
    const [step] = await s.db.select().from(steps).where(eq(steps.runId, runId));
    expect(tools.map((t) => t.attributes)).toEqual([
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "slack.post",
        "gen_ai.tool.call.id": "call_slack",
        "clawdeck.run.id": runId,
        "clawdeck.step.id": step!.id,
        "clawdeck.tool.status": "succeeded",
        "clawdeck.approval.required": true,
        "clawdeck.approval.id": pending.id,
        "clawdeck.approval.decision": "approved",
        "clawdeck.approval.wait_ms": decided!.decidedAt!.getTime() - decided!.createdAt.getTime(),
      },
    ]);
    // The span runs from the step's start, through the wait, to its end after the decision.
    expect(tools[0]!.startMs).toBeLessThanOrEqual(decided!.createdAt.getTime());
    expect(tools[0]!.endMs).toBeGreaterThanOrEqual(decided!.decidedAt!.getTime());
  });

  it("a run woken by another agent's message is a child of the waking run's span, in its trace", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const sender = await makeAgent(s.db, owner.workspaceId, { model: "scripted-sender", tools: ["chat.send"] });
    const woken = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] });
    useScriptedModel(s, [toolTurn([{ id: "m1", name: "chat.send", input: { to: woken.handle, message: "the numbers are in" } }]), textTurn(["told"])], "scripted-sender");
    const { runId } = await chat(sender, "tell the other agent");
    const [wokenRun] = await settle(async () => {
      const runs = await s.db.select().from(agentRuns).where(and(eq(agentRuns.agentId, woken.id), eq(agentRuns.trigger, "agent_message")));
      return runs.length > 0 && runs;
    });
    await waitForRun(s.db, wokenRun!.id);
    const waking = await exported(runId);
    const child = await exported(wokenRun!.id);
    expect(child.run.traceId).toBe(waking.run.traceId);
    expect(child.run.parentSpanId).toBe(waking.run.spanId);
    expect(child.run.attributes).toMatchObject({ "clawdeck.run.trigger": "agent_message", "clawdeck.run.woken_by": runId });
    expect(child.models.map((m) => [m.traceId, m.attributes["gen_ai.provider.name"]])).toEqual(child.models.map(() => [waking.run.traceId, "offline"]));
  });

  it("every run of a mission is in the mission's trace, under its span", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const [lead, writer] = [await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] }), await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] })];
    const made = await createCrewRoute(
      jsonRequest("/api/crews", {
        method: "POST",
        cookie: await sessionCookie(s, manager),
        body: { name: "otel crew", nodes: [{ id: "lead", role: "lead", agentHandle: lead!.handle }, { id: "writer", role: "writer", agentHandle: writer!.handle }], edges: [{ from: "lead", to: "writer" }] },
      }),
    );
    expect(made.status).toBe(201);
    const { missionId } = await s.missions.start({ workspaceId: owner.workspaceId, crewId: ((await made.json()) as { id: string }).id, goal: "Write the notes", userId: manager.id });
    await settle(async () => (await s.db.select().from(missionRuns).where(eq(missionRuns.id, missionId)))[0]?.state === "succeeded");
    const mission = await settle(async () => {
      await telemetryOf(s.db)!.flush();
      return receiver.spans.find((span) => span.attributes["clawdeck.mission.id"] === missionId && span.name.startsWith("invoke_workflow"));
    });
    expect(mission).toMatchObject({ name: "invoke_workflow otel crew", traceId: traceIdOf({ missionRunId: missionId }), spanId: spanIdOf("mission", missionId), parentSpanId: "" });
    expect(mission.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "otel crew", "clawdeck.mission.state": "succeeded" });
    const runs = await s.db.select().from(agentRuns).where(eq(agentRuns.missionRunId, missionId));
    expect(runs.map((r) => r.missionNodeId).sort()).toEqual(["lead", "writer"]);
    for (const r of runs) {
      const { run, models } = await exported(r.id);
      expect([run.traceId, run.parentSpanId, run.attributes["clawdeck.mission.id"], run.attributes["clawdeck.mission.node"]]).toEqual([mission.traceId, mission.spanId, missionId, r.missionNodeId]);
      expect(models.length).toBeGreaterThan(0);
    }
  });

  it("message contents are exported only once a manager turns them on, which is audited; members cannot", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const put = async (user: typeof manager, exportContents: boolean) =>
      putTelemetry(jsonRequest("/api/workspace/telemetry", { method: "PUT", cookie: await sessionCookie(s, user), body: { exportContents } }));
    const read = await getTelemetry(jsonRequest("/api/workspace/telemetry", { cookie: await sessionCookie(s, member) }));
    expect(await read.json()).toEqual({ exportContents: false, endpointConfigured: true });
    const refused = await put(member, true);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe("forbidden:role");
    const on = await put(manager, true);
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ exportContents: true, endpointConfigured: true });
    onTestFinished(async () => {
      expect((await put(manager, false)).status).toBe(200);
    });
    const audit = await s.db.select().from(auditLog).where(eq(auditLog.action, "workspace.telemetry_contents_changed"));
    expect(audit.map((a) => [a.actorId, a.detail])).toEqual([[manager.id, { from: false, to: true }]]);

    const agent = await makeAgent(s.db, owner.workspaceId, { model: "scripted-contents" });
    useScriptedModel(s, [toolTurn([{ id: "call_1", name: "memory.remember", input: { text: "contents-marker-9" } }]), textTurn(["Kept contents-marker-9."])], "scripted-contents");
    const { runId } = await chat(agent, "please remember contents-marker-9");
    const { models, tools } = await exported(runId);
    const [first, second] = [...models].sort((a, b) => Number(a.attributes["clawdeck.model_call.number"]) - Number(b.attributes["clawdeck.model_call.number"]));
    expect(JSON.parse(String(first!.attributes["gen_ai.input.messages"]))).toEqual([{ role: "user", parts: [{ type: "text", content: "please remember contents-marker-9" }] }]);
    expect(JSON.parse(String(first!.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "memory.remember", arguments: { text: "contents-marker-9" } }], finish_reason: "tool_use" },
    ]);
    expect(JSON.parse(String(second!.attributes["gen_ai.input.messages"])).at(-1)).toMatchObject({ role: "tool", parts: [{ type: "tool_call_response", id: "call_1" }] });
    expect(JSON.parse(String(second!.attributes["gen_ai.output.messages"]))[0].parts).toEqual([{ type: "text", content: "Kept contents-marker-9." }]);
    expect(String(first!.attributes["gen_ai.system_instructions"])).toContain(agent.handle);
    expect(JSON.parse(String(tools[0]!.attributes["gen_ai.tool.call.arguments"]))).toEqual({ text: "contents-marker-9" });
    expect(tools[0]!.attributes["gen_ai.tool.call.result"]).toBeTypeOf("string");
  });

  it("nothing is loaded or exported without OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const s = server();
    await exportAs({});
    expect(telemetryOf(s.db)).toBeUndefined();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "scripted-unset" });
    useScriptedModel(s, [toolTurn([{ id: "call_1", name: "memory.remember", input: { text: "unset" } }]), textTurn(["Done."])], "scripted-unset");
    const { runId } = await chat(agent, "remember unset");
    expect((await getRunRow(s.db, runId)).state).toBe("succeeded");
    // Exporting again, a later run arrives, and nothing of the earlier one was kept to be sent.
    await stopTelemetry(s.db);
    await startTelemetry(s.db, parseEnv(collector));
    useScriptedModel(s, [textTurn(["Later."])], "scripted-unset");
    const later = await chat(agent, "and now");
    await exported(later.runId);
    expect(receiver.spans.filter((span) => span.attributes["clawdeck.run.id"] === runId)).toEqual([]);
  });

  it("a collector that is down or never answers neither fails a run nor holds it up", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "scripted-down" });
    const runOnce = async (marker: string) => {
      routeModel(s, "scripted-down", createScriptedModel([toolTurn([{ id: "call_1", name: "memory.remember", input: { text: marker } }]), textTurn(["Done."])]));
      const { runId } = await chat(agent, `remember ${marker}`);
      return getRunRow(s.db, runId);
    };
    // Nothing listens: the run ends well and its spans are dropped (flushing says so in the log, and returns).
    await exportAs({ OTEL_EXPORTER_OTLP_ENDPOINT: await closedPortUrl(), OTEL_EXPORTER_OTLP_TIMEOUT: "500" });
    expect((await runOnce("refused")).state).toBe("succeeded");
    await telemetryOf(s.db)!.flush();

    // A collector that takes the export and never answers: a whole run starts and ends while the export hangs.
    const hanging = await startOtlpReceiver({ hold: true });
    onTestFinished(() => hanging.close());
    await exportAs({ OTEL_EXPORTER_OTLP_ENDPOINT: hanging.url, OTEL_EXPORTER_OTLP_TIMEOUT: "5000" });
    expect((await runOnce("first")).state).toBe("succeeded");
    let exportEnded = false;
    const flushing = telemetryOf(s.db)!
      .flush()
      .then(() => (exportEnded = true));
    await settle(async () => hanging.unanswered() > 0);
    const run = await runOnce("second");
    expect(run.state).toBe("succeeded");
    // Still waiting for the collector (it gives up after 5 s) when the run had already ended.
    expect([hanging.unanswered() > 0, exportEnded]).toEqual([true, false]);
    await hanging.close();
    await flushing;
  });
});
