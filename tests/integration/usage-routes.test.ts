import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as getBudgetsRoute, PUT as putBudgetsRoute } from "../../app/api/budgets/route";
import { GET as getPricesRoute, PUT as putPricesRoute } from "../../app/api/prices/route";
import { GET as exportRoute } from "../../app/api/usage/export.csv/route";
import { GET as reconciliationRoute } from "../../app/api/usage/reconciliation/route";
import { GET as reportRoute } from "../../app/api/usage/route";
import { GET as summaryRoute } from "../../app/api/usage/summary/route";
import { chargeUsage } from "../../lib/billing/ledger";
import { rowsOf } from "../../lib/db/client";
import { approvals, comparisons, steps, usageEvents } from "../../lib/db/schema";
import { randomUUID } from "node:crypto";
import type { UsageReport } from "../../lib/billing/report";
import type { UsageSummary } from "../../lib/billing/summary";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";
import { insertRun, usage } from "../support/usage";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Splits CSV lines into cells (quoted cells may hold commas and doubled quotes). */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split("\r\n")
    .map((line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].slice(0, -1).map((m) => m[1]!.replace(/^"|"$/g, "").replace(/""/g, '"')));
}

describe("usage routes", () => {
  const server = useTestServer();
  /** The end of the last whole hour: every seeded charge below is in the past. */
  const T0 = new Date(Math.floor(Date.now() / HOUR) * HOUR);
  const ago = (ms: number) => new Date(T0.getTime() - ms);

  /**
   * A workspace with two agents and a known ledger (claude-sonnet at $3/$15 per Mtok):
   * A at T0−90 min: 1000 in + 500 out = 10,500 · A at T0−150 min: 500 + 250 = 5,250 ·
   * A at T0−3 d (a judge call): 2000 + 1000 = 21,000 · B at T0−2 d: 500 + 250 = 5,250 · B at T0−10 d: 10,500 ·
   * B at T0−40 d: 22,500 (offline, nominal, below).
   */
  async function seeded(name: string) {
    const s = server();
    const owner = await makeUser(s.db);
    const workspace = await makeWorkspace(s.db, name, owner);
    const a = await makeAgent(s.db, workspace.id, { handle: `alpha${Date.now().toString(36)}` });
    const b = await makeAgent(s.db, workspace.id, { handle: `beta${Date.now().toString(36)}` });
    const run = await insertRun(s.db, { workspaceId: workspace.id, agentId: a.id });
    let n = 0;
    const charge = (agentId: string, model: string, u: ReturnType<typeof usage>, at: Date, kind: "run" | "judge" = "run") =>
      chargeUsage(s.db, {
        workspaceId: workspace.id,
        agentId,
        source: kind === "run" ? { kind, runId: run.id } : { kind, id: "j" },
        model,
        usage: u,
        idempotencyKey: `${workspace.id}-${(n += 1)}`,
        occurredAt: at,
      });
    await charge(a.id, "claude-sonnet-4-6", usage(1000, 500), ago(90 * 60_000));
    await charge(a.id, "claude-sonnet-4-6", usage(500, 250), ago(150 * 60_000));
    await charge(a.id, "claude-sonnet-4-6", usage(2000, 1000), ago(3 * DAY), "judge");
    await charge(b.id, "claude-sonnet-4-6", usage(500, 250), ago(2 * DAY));
    await charge(b.id, "claude-sonnet-4-6", usage(1000, 500), ago(10 * DAY));
    // The offline model's nominal price: 40,000 × 0.25 + 10,000 × 1.25 = 10,000 + 12,500 = 22,500 credits.
    await charge(b.id, "offline", usage(40_000, 10_000), ago(40 * DAY));
    return { s, owner, workspace, a, b, cookie: await sessionCookie(s, owner) };
  }

  async function ledgerCredits(workspaceId: string, from: Date, to: Date): Promise<number> {
    const [row] = rowsOf<{ credits: string }>(
      await server().db.execute(
        sql`select coalesce(sum(credits), 0)::text as credits from ${usageEvents} where workspace_id = ${workspaceId} and created_at >= ${from.toISOString()}::timestamptz and created_at < ${to.toISOString()}::timestamptz`,
      ),
    );
    return Number(row!.credits);
  }

  it("spend cards equal the ledger: range 10,500 vs 5,250 before (+100 %), 7 d 42,000 vs 10,500 (+300 %), 30 d 52,500 vs 22,500 credits", async () => {
    const { s, workspace, a, b, cookie } = await seeded("Cards");
    // Three runs in the range: 1 s, 2 s and 10 s long, first tokens after 100, 200 and 300 ms, 3 tool calls in all.
    for (const [i, ms] of [1000, 2000, 10_000].entries()) {
      const started = ago(100 * 60_000 - i * 60_000);
      await insertRun(s.db, {
        workspaceId: workspace.id,
        agentId: i === 2 ? b.id : a.id,
        createdAt: started,
        startedAt: started,
        firstTokenAt: new Date(started.getTime() + (i + 1) * 100),
        finishedAt: new Date(started.getTime() + ms),
        stepCount: i,
        state: i === 2 ? "failed" : "succeeded",
        errorCode: i === 2 ? "unprocessable:budget_exceeded" : null,
      });
    }
    const from = ago(2 * HOUR);
    const res = await summaryRoute(jsonRequest(`/api/usage/summary?from=${from.toISOString()}&to=${T0.toISOString()}`, { cookie, workspace: workspace.slug }));
    expect(res.status).toBe(200);
    const summary = (await res.json()) as UsageSummary;
    const [range, week, month] = summary.spend!.periods;
    expect(range).toMatchObject({ key: "range", credits: 10_500, previousCredits: 5_250, change: 1 });
    expect(week).toMatchObject({ key: "7d", credits: 42_000, previousCredits: 10_500, change: 3 });
    expect(month).toMatchObject({ key: "30d", credits: 52_500, previousCredits: 22_500 });
    for (const p of summary.spend!.periods) {
      const span = new Date(p.to).getTime() - new Date(p.from).getTime();
      expect(p.credits).toBe(await ledgerCredits(workspace.id, new Date(p.from), new Date(p.to)));
      expect(p.previousCredits).toBe(await ledgerCredits(workspace.id, new Date(new Date(p.from).getTime() - span), new Date(p.from)));
    }
    expect(summary.spend!.topAgents).toEqual([
      { agentId: a.id, handle: a.handle, name: a.name, credits: 36_750, calls: 3 },
      { agentId: b.id, handle: b.handle, name: b.name, credits: 5_250, calls: 1 },
    ]);
    expect(summary.spend!.nominalCredits).toBe(0);
    expect(summary.activity).toMatchObject({ runs: 3, toolCalls: 3, modelCalls: 1, activeAgents: 2, failedRuns: 1, budgetStops: 1, approvalsPending: 0 });
    expect(summary.activity.hourly).toHaveLength(24);
    expect(summary.activity.hourly.reduce((sum, h) => sum + h.runs, 0)).toBe(3);
    // 1500 tokens and 3 runs over 120 minutes, none of them in the last hour; p95 of 1, 2, 10 s = 2 + 0.9 × 8 = 9.2 s.
    expect(summary.throughput).toEqual({ tokens: 1500, tokensPerMinute: 12.5, runsPerMinute: 0.025, runsLastHour: 0, p50RunMs: 2000, p95RunMs: 9200, p50FirstTokenMs: 200 });
  });

  it("the usage table and its CSV: same rows and totals, equal to the ledger (A 36,750 + B 38,250 = 75,000 credits over 60 days)", async () => {
    const { workspace, a, b, cookie } = await seeded("Report");
    const from = ago(60 * DAY);
    for (const group of ["agent", "model", "source", "person"] as const) {
      const query = `from=${from.toISOString()}&to=${T0.toISOString()}&group=${group}&tz=Europe/Berlin`;
      const res = await reportRoute(jsonRequest(`/api/usage?${query}`, { cookie, workspace: workspace.slug }));
      expect(res.status).toBe(200);
      const report = (await res.json()) as UsageReport;
      expect(report.granularity).toBe("day");
      expect(report.totals.credits).toBe(75_000);
      expect(report.totals.credits).toBe(await ledgerCredits(workspace.id, from, T0));
      expect(report.series.reduce((sum, p) => sum + p.credits, 0)).toBe(75_000);
      const csvRes = await exportRoute(jsonRequest(`/api/usage/export.csv?${query}`, { cookie, workspace: workspace.slug }));
      expect(csvRes.status).toBe(200);
      expect(csvRes.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(csvRes.headers.get("content-disposition")).toMatch(/attachment; filename="usage-.+\.csv"/);
      const [header, ...lines] = parseCsv(await csvRes.text());
      expect(header).toEqual(["group", "key", "label", "calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "unpriced_calls", "credits", "usd", "compute_seconds"]);
      const totalLine = lines.pop()!;
      expect(lines.map((l) => [l[1], l[2], Number(l[3]), Number(l[4]), Number(l[5]), Number(l[9])])).toEqual(
        report.rows.map((r) => [r.key, r.label, r.calls, r.inputTokens, r.outputTokens, r.credits]),
      );
      expect(totalLine.slice(0, 1)).toEqual(["total"]);
      expect(Number(totalLine[9])).toBe(report.totals.credits);
      expect(totalLine[10]).toBe("0.075000");
      expect(lines.reduce((sum, l) => sum + Number(l[9]), 0)).toBe(Number(totalLine[9]));
      if (group === "agent") {
        expect(report.rows.map((r) => [r.label, r.credits])).toEqual([
          [`${b.name} (@${b.handle})`, 38_250],
          [`${a.name} (@${a.handle})`, 36_750],
        ]);
      }
      if (group === "model") expect(report.rows.find((r) => r.key === "offline")).toMatchObject({ label: "offline (nominal price)", nominal: true, credits: 22_500 });
      if (group === "source") expect(report.rows.map((r) => [r.key, r.label, r.credits])).toEqual([["run:chat", "Chat turns", 54_000], ["judge", "The judge of comparisons", 21_000]]);
    }
    // A one-day range is hourly, and only holds that day's charges.
    const day = await reportRoute(jsonRequest(`/api/usage?from=${ago(DAY).toISOString()}&to=${T0.toISOString()}`, { cookie, workspace: workspace.slug }));
    const dayReport = (await day.json()) as UsageReport;
    expect(dayReport).toMatchObject({ granularity: "hour", totals: { credits: 15_750 } });
  });

  it("grouped by person: a run's spend goes to whom it acted for, the governor's to the person of the request it judged, a comparison's judge to who started it; by source, runs by what started them", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const workspace = await makeWorkspace(s.db, "By person", owner);
    const member = await makeUser(s.db, workspace.id, "member");
    const agent = await makeAgent(s.db, workspace.id, { handle: `who${Date.now().toString(36)}` });
    const chat = await insertRun(s.db, { workspaceId: workspace.id, agentId: agent.id, trigger: "chat", userId: owner.id });
    // Started by another agent's message in a chain the member began: it acts for the member.
    const relayed = await insertRun(s.db, { workspaceId: workspace.id, agentId: agent.id, trigger: "agent_message", onBehalfOfUserId: member.id });
    const [approval] = await s.db
      .insert(approvals)
      .values({ workspaceId: workspace.id, runId: relayed.id, agentId: agent.id, category: "external_send", tool: "slack.post", callId: "c1", input: {}, preview: {}, fingerprint: "f", expiresAt: new Date(Date.now() + HOUR) })
      .returning();
    const [comparison] = await s.db.insert(comparisons).values({ workspaceId: workspace.id, goal: "g", missionRunIds: [randomUUID(), randomUUID()], startedByUserId: member.id }).returning();
    let n = 0;
    const charge = (source: Parameters<typeof chargeUsage>[1]["source"], u: ReturnType<typeof usage>, agentId: string | null = agent.id) =>
      chargeUsage(s.db, { workspaceId: workspace.id, agentId, source, model: "claude-sonnet-4-6", usage: u, idempotencyKey: `${workspace.id}-p${(n += 1)}`, occurredAt: ago(HOUR) });
    await charge({ kind: "run", runId: chat.id }, usage(1000, 500)); // 10,500: the owner's
    await charge({ kind: "run", runId: relayed.id }, usage(500, 250)); // 5,250: the member's
    await charge({ kind: "governor", id: approval!.id }, usage(100, 0)); // 300: the member's request
    await charge({ kind: "judge", id: comparison!.id }, usage(0, 100), null); // 1,500: the member started it
    await charge({ kind: "judge", id: "gone" }, usage(200, 0), null); // 600: nobody's
    const cookie = await sessionCookie(s, owner);
    const read = async (group: string) => {
      const res = await reportRoute(jsonRequest(`/api/usage?from=${ago(DAY).toISOString()}&to=${T0.toISOString()}&group=${group}`, { cookie, workspace: workspace.slug }));
      expect(res.status).toBe(200);
      return (await res.json()) as UsageReport;
    };
    const byPerson = await read("person");
    expect(byPerson.rows.map((r) => [r.key, r.label, r.credits, r.calls])).toEqual([
      [owner.id, owner.name, 10_500, 1],
      [member.id, member.name, 7_050, 3],
      ["", "No person: the workspace itself, or someone removed", 600, 1],
    ]);
    expect(byPerson.totals.credits).toBe(18_150);
    expect(byPerson.series.reduce((sum, p) => sum + p.credits, 0)).toBe(18_150);
    const bySource = await read("source");
    expect(bySource.rows.map((r) => [r.key, r.label, r.credits])).toEqual([
      ["run:chat", "Chat turns", 10_500],
      ["run:agent_message", "Agent-to-agent messages", 5_250],
      ["judge", "The judge of comparisons", 2_100],
      ["governor", "The governor, judging requests", 300],
    ]);
    expect(bySource.totals).toEqual(byPerson.totals);
    // By agent, the judge's spend is said to be the judge's, not "No agent".
    const byAgent = await read("agent");
    expect(byAgent.rows.map((r) => [r.label, r.credits])).toEqual([
      [`${agent.name} (@${agent.handle})`, 16_050],
      ["The judge of comparisons", 2_100],
    ]);
  });

  it("grouped by source, lists door activity: its tool calls in the range, no tokens, no credits, the ledger's totals unchanged", async () => {
    const { workspace, a, cookie } = await seeded("Door activity");
    const s = server();
    const door = await insertRun(s.db, { workspaceId: workspace.id, agentId: a.id, trigger: "door" });
    const chat = await insertRun(s.db, { workspaceId: workspace.id, agentId: a.id, trigger: "chat" });
    const step = (runId: string, n: number, at: Date) =>
      s.db.insert(steps).values({ workspaceId: workspace.id, runId, position: n, callId: `c${n}`, tool: "memory.recall", input: {}, createdAt: at });
    await step(door.id, 0, ago(30 * 60_000));
    await step(door.id, 1, ago(2 * DAY));
    await step(door.id, 2, ago(70 * DAY)); // before the range
    await step(chat.id, 0, ago(HOUR)); // not a door call
    const query = `from=${ago(60 * DAY).toISOString()}&to=${T0.toISOString()}`;
    const bySource = (await (await reportRoute(jsonRequest(`/api/usage?${query}&group=source`, { cookie, workspace: workspace.slug }))).json()) as UsageReport;
    const byAgent = (await (await reportRoute(jsonRequest(`/api/usage?${query}&group=agent`, { cookie, workspace: workspace.slug }))).json()) as UsageReport;
    expect(bySource.rows.map((r) => [r.key, r.calls, r.inputTokens + r.outputTokens, r.credits])).toEqual([
      ["run:chat", 5, 54_500, 54_000],
      ["judge", 1, 3_000, 21_000],
      ["door", 2, 0, 0],
    ]);
    expect(bySource.totals).toEqual(byAgent.totals);
    expect(bySource.totals.credits).toBe(75_000);
    const csv = parseCsv(await (await exportRoute(jsonRequest(`/api/usage/export.csv?${query}&group=source`, { cookie, workspace: workspace.slug }))).text());
    expect(csv.find((l) => l[1] === "door")?.slice(3, 4).concat(csv.find((l) => l[1] === "door")!.slice(9, 10))).toEqual(["2", "0"]);
  });

  it("validates the range: at most 400 days, `to` after `from`, a real time zone", async () => {
    const { workspace, cookie } = await seeded("Ranges");
    const bad = [
      [`/api/usage?from=${ago(401 * DAY).toISOString()}&to=${T0.toISOString()}`, "bad_request:range"],
      [`/api/usage?from=${T0.toISOString()}&to=${ago(HOUR).toISOString()}`, "bad_request:range"],
      [`/api/usage?from=yesterday`, "bad_request:range"],
      [`/api/usage?from=-271821-04-20`, "bad_request:range"],
      [`/api/usage?group=colour`, "bad_request:query"],
      [`/api/usage?tz=Mars/Olympus`, "bad_request:query"],
    ];
    for (const [url, code] of bad) {
      const res = await reportRoute(jsonRequest(url!, { cookie, workspace: workspace.slug }));
      expect(res.status, url).toBe(400);
      expect((await res.json()).code, url).toBe(code);
    }
    const tooLong = await summaryRoute(jsonRequest(`/api/usage/summary?from=${ago(500 * DAY).toISOString()}`, { cookie, workspace: workspace.slug }));
    expect(tooLong.status).toBe(400);
  });

  it("reviewers read spend but cannot change prices or budgets (403); members cannot read spend at all", async () => {
    const { s, workspace, a } = await seeded("Roles");
    const reviewer = await sessionCookie(s, await makeUser(s.db, workspace.id, "reviewer"));
    const member = await sessionCookie(s, await makeUser(s.db, workspace.id, "member"));
    const manager = await sessionCookie(s, await makeUser(s.db, workspace.id, "manager"));
    const as = (cookie: string, url: string, init: { method?: string; body?: unknown } = {}) => jsonRequest(url, { ...init, cookie, workspace: workspace.slug });
    const prices = { prices: [{ model: "claude-sonnet-4", input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }], defaultPrice: null };
    const budgets = { workspace: 1_000_000, agents: [{ agentId: a.id, monthlyBudgetCredits: 500_000 }] };

    expect((await getPricesRoute(as(reviewer, "/api/prices"))).status).toBe(200);
    expect((await getBudgetsRoute(as(reviewer, "/api/budgets"))).status).toBe(200);
    expect((await reportRoute(as(reviewer, "/api/usage"))).status).toBe(200);
    for (const res of [await putPricesRoute(as(reviewer, "/api/prices", { method: "PUT", body: prices })), await putBudgetsRoute(as(reviewer, "/api/budgets", { method: "PUT", body: budgets }))]) {
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("forbidden:role");
    }
    for (const res of [
      await reportRoute(as(member, "/api/usage")),
      await exportRoute(as(member, "/api/usage/export.csv")),
      await getBudgetsRoute(as(member, "/api/budgets")),
      await getPricesRoute(as(member, "/api/prices")),
      await reconciliationRoute(as(member, "/api/usage/reconciliation")),
    ]) {
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("forbidden:role");
    }
    // Members see activity, never spend.
    const memberSummary = (await (await summaryRoute(as(member, "/api/usage/summary"))).json()) as UsageSummary;
    expect(memberSummary.spend).toBeNull();
    expect(JSON.stringify(memberSummary)).not.toMatch(/credits/i);
    const reviewerSummary = (await (await summaryRoute(as(reviewer, "/api/usage/summary"))).json()) as UsageSummary;
    expect(reviewerSummary.spend?.periods).toHaveLength(3);

    const setPrices = await putPricesRoute(as(manager, "/api/prices", { method: "PUT", body: prices }));
    expect(setPrices.status).toBe(200);
    expect((await setPrices.json()).prices[0]).toMatchObject({ model: "claude-sonnet-4", input: 1, output: 2, source: "workspace" });
    const setBudgets = await putBudgetsRoute(as(manager, "/api/budgets", { method: "PUT", body: budgets }));
    expect(setBudgets.status).toBe(200);
    const overview = await setBudgets.json();
    expect(overview.workspace).toMatchObject({ budgetCredits: 1_000_000 });
    expect(overview.agents.find((x: { agentId: string }) => x.agentId === a.id)).toMatchObject({ budgetCredits: 500_000 });
    const badPrice = await putPricesRoute(as(manager, "/api/prices", { method: "PUT", body: { prices: [{ model: "x", input: 0.0000001, output: 1, cacheRead: 0, cacheWrite: 0 }], defaultPrice: null } }));
    expect(badPrice.status).toBe(400);
  });

  it("another workspace's usage is not visible, and its agents' budgets cannot be set from here", async () => {
    const mine = await seeded("Mine");
    const theirs = await seeded("Theirs");
    const s = server();
    const stranger = await makeUser(s.db);
    await makeWorkspace(s.db, "Stranger", stranger);
    const strangerCookie = await sessionCookie(s, stranger);
    for (const res of [
      await summaryRoute(jsonRequest("/api/usage/summary", { cookie: strangerCookie, workspace: mine.workspace.slug })),
      await reportRoute(jsonRequest("/api/usage", { cookie: strangerCookie, workspace: mine.workspace.slug })),
      await exportRoute(jsonRequest("/api/usage/export.csv", { cookie: strangerCookie, workspace: mine.workspace.slug })),
    ]) {
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("forbidden:workspace");
    }
    // The stranger's own workspace shows nothing of the others' ledger.
    const own = (await (await reportRoute(jsonRequest(`/api/usage?from=${ago(60 * DAY).toISOString()}`, { cookie: strangerCookie }))).json()) as UsageReport;
    expect(own.rows).toEqual([]);
    expect(own.totals.credits).toBe(0);
    const report = (await (await reportRoute(jsonRequest(`/api/usage?from=${ago(60 * DAY).toISOString()}`, { cookie: mine.cookie, workspace: mine.workspace.slug }))).json()) as UsageReport;
    expect(report.totals.credits).toBe(75_000);
    expect(report.rows.map((r) => r.key)).not.toContain(theirs.a.id);
    const foreign = await putBudgetsRoute(
      jsonRequest("/api/budgets", { method: "PUT", cookie: mine.cookie, workspace: mine.workspace.slug, body: { agents: [{ agentId: theirs.a.id, monthlyBudgetCredits: 1 }] } }),
    );
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).code).toBe("not_found:agent");
    const theirBudgets = await (await getBudgetsRoute(jsonRequest("/api/budgets", { cookie: theirs.cookie, workspace: theirs.workspace.slug }))).json();
    expect(theirBudgets.agents.find((x: { agentId: string }) => x.agentId === theirs.a.id).budgetCredits).toBeNull();
  });
});
