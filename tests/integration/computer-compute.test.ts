import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createChat } from "../../lib/chats/chats";
import { getPriceList, updatePrices } from "../../lib/billing/price-book";
import { getUsageReport } from "../../lib/billing/report";
import { currentFiles } from "../../lib/computers/files";
import { agentRuns, agents, steps, usageEvents } from "../../lib/db/schema";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { demoOwner } from "../support/fixtures";
import { makeAgent, settle, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

describe("compute: the seconds of an agent's computer are charged to the ledger, priced, reported and held by budgets", () => {
  const server = useTestServer();

  async function setup() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["shell.exec", "files.list"] });
    return { s, owner, agent };
  }

  async function turn(ctx: Awaited<ReturnType<typeof setup>>, text: string) {
    const { s, owner, agent } = ctx;
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text });
    await waitForRun(s.db, runId, 60_000);
    const rows = await s.db.select().from(steps).where(eq(steps.runId, runId)).orderBy(asc(steps.position));
    return { runId, steps: rows };
  }

  const computeRows = (ctx: Awaited<ReturnType<typeof setup>>) =>
    ctx.s.db.select().from(usageEvents).where(and(eq(usageEvents.agentId, ctx.agent.id), eq(usageEvents.sourceKind, "compute")));

  it("charges a command's seconds at the built-in price, adds them to the run, and tells the chat", async () => {
    const ctx = await setup();
    const { runId, steps: [step] } = await turn(ctx, "run sleep 1.2; echo done");
    expect(step?.status).toBe("succeeded");
    const [row] = await computeRows(ctx);
    expect(row).toMatchObject({ model: "sandbox", runId, sourceId: step!.id, idempotencyKey: `compute:${step!.id}` });
    expect(row!.computeMs).toBeGreaterThanOrEqual(1_200);
    // $0.000014 a second: 14 credits a second, rounded up.
    expect(row!.credits).toBe(Math.ceil((row!.computeMs * 14) / 1000));
    const [run] = await ctx.s.db.select({ credits: agentRuns.credits }).from(agentRuns).where(eq(agentRuns.id, runId));
    const modelCredits = (await ctx.s.db.select().from(usageEvents).where(and(eq(usageEvents.runId, runId), eq(usageEvents.sourceKind, "run")))).reduce((t, r) => t + r.credits, 0);
    expect(run!.credits).toBe(modelCredits + row!.credits);
    const usage = (await readRunEvents(ctx.s.db, runId, 0)).filter((e) => e.type === "usage").map((e) => e.payload as { model: string; computeMs?: number; credits: number });
    expect(usage).toContainEqual({ model: "sandbox", inputTokens: 0, outputTokens: 0, credits: row!.credits, estimated: false, computeMs: row!.computeMs });
    // A tool that does not run on the computer is not charged as compute.
    await turn(ctx, "ls");
    expect(await computeRows(ctx)).toHaveLength(1);

    // The usage page shows the computers as their own source, with their time.
    const report = await getUsageReport(ctx.s.db, ctx.owner.workspaceId, { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000), group: "source", tz: "UTC" });
    const computers = report.rows.find((r) => r.key === "compute");
    expect(computers?.label).toBe("Agents' computers (commands and browsers) (nominal price)");
    expect(computers?.computeMs).toBeGreaterThanOrEqual(row!.computeMs);
  });

  it("charges at the workspace's own price, and a price list left without it keeps it", async () => {
    const ctx = await setup();
    const { s, owner } = ctx;
    expect((await getPriceList(s.db, owner.workspaceId)).compute).toEqual({ usdPerSecond: 0.000014, source: "built-in", nominal: true });
    await updatePrices(s.db, owner.workspaceId, owner.id, { prices: [], defaultPrice: null, compute: { usdPerSecond: 0.01 } });
    await turn(ctx, "run sleep 0.3");
    const [row] = await computeRows(ctx);
    expect(row!.credits).toBe(Math.ceil(row!.computeMs * 10));
    await updatePrices(s.db, owner.workspaceId, owner.id, { prices: [], defaultPrice: null });
    expect((await getPriceList(s.db, owner.workspaceId)).compute).toEqual({ usdPerSecond: 0.01, source: "workspace", nominal: false });
    await updatePrices(s.db, owner.workspaceId, owner.id, { prices: [], defaultPrice: null, compute: null });
    expect((await getPriceList(s.db, owner.workspaceId)).compute.source).toBe("built-in");
  });

  it("a spent budget refuses the next command before it runs; a cancelled command is charged for the time it ran", async () => {
    const ctx = await setup();
    const { s, owner, agent } = ctx;
    await turn(ctx, "run echo first");
    await s.db.update(agents).set({ monthlyBudgetCredits: 1 }).where(eq(agents.id, agent.id));
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    // The message is refused before any run: nothing ran.
    await expect(
      s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "run touch made.txt" }),
    ).rejects.toMatchObject({ code: "unprocessable:budget_exceeded", message: expect.stringMatching(/monthly budget/) });
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, session.id))).toHaveLength(0);
    expect((await currentFiles(s.db, agent.id)).map((f) => f.path)).not.toContain("made.txt");
    expect(await computeRows(ctx)).toHaveLength(1);

    // With one credit left, the model call goes ahead and the first command runs; the second finds the budget spent.
    // (Compute is priced high here, so that the first command alone spends what the model call left.)
    const charges = await s.db.select().from(usageEvents).where(eq(usageEvents.agentId, agent.id)).orderBy(asc(usageEvents.id));
    const spent = charges.reduce((t, r) => t + r.credits, 0);
    const modelCall = charges.find((r) => r.sourceKind === "run")!.credits;
    await updatePrices(s.db, owner.workspaceId, owner.id, { prices: [], defaultPrice: null, compute: { usdPerSecond: 0.01 } });
    await s.db.update(agents).set({ monthlyBudgetCredits: spent + 2 * modelCall + 1 }).where(eq(agents.id, agent.id));
    const both = await turn(ctx, "run sleep 0.2\nrun touch second.txt");
    expect(both.steps.map((step) => step.status)).toEqual(["succeeded", "refused"]);
    expect(both.steps[1]?.error).toMatch(/monthly budget/);
    expect((await currentFiles(s.db, agent.id)).map((f) => f.path)).not.toContain("second.txt");

    await s.db.update(agents).set({ monthlyBudgetCredits: null }).where(eq(agents.id, agent.id));
    await updatePrices(s.db, owner.workspaceId, owner.id, { prices: [], defaultPrice: null, compute: null });
    const again = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const started = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: again.id, userId: owner.id, text: "run echo begun; sleep 600" });
    await settle(async () => (await readRunEvents(s.db, started.runId, 0)).some((e) => e.type === "tool_output"));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await s.runtime.cancelRun(owner.workspaceId, started.runId, { userId: owner.id, role: "owner" });
    await waitForRun(s.db, started.runId);
    const charged = (await computeRows(ctx)).find((r) => r.runId === started.runId);
    expect(charged?.computeMs).toBeGreaterThanOrEqual(500);
    expect(charged?.computeMs).toBeLessThan(10_000);
  });
});
