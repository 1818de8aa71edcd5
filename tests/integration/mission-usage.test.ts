import { describe, expect, it } from "vitest";
import { GET as reportRoute } from "../../app/api/usage/route";
import { chargeUsage } from "../../lib/billing/ledger";
import type { UsageReport } from "../../lib/billing/report";
import { missionRuns, missions } from "../../lib/db/schema";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";
import { insertRun, usage } from "../support/usage";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("usage grouped by mission", () => {
  const server = useTestServer();
  const T0 = new Date(Math.floor(Date.now() / HOUR) * HOUR);
  const ago = (ms: number) => new Date(T0.getTime() - ms);

  it("sums each mission's turns from the ledger over the range, the rest as outside missions, with the same totals as any grouping", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const workspace = await makeWorkspace(s.db, "Mission spend", owner);
    const cookie = await sessionCookie(s, owner);
    const agent = await makeAgent(s.db, workspace.id);
    const run = await insertRun(s.db, { workspaceId: workspace.id, agentId: agent.id });
    const [crew] = await s.db.insert(missions).values({ workspaceId: workspace.id, name: "Pair", topology: { nodes: [], edges: [] } }).returning();
    const [m1, m2] = await s.db
      .insert(missionRuns)
      .values([
        { workspaceId: workspace.id, missionId: crew!.id, goal: "Write the notes" },
        { workspaceId: workspace.id, missionId: crew!.id, goal: "Check the notes" },
      ])
      .returning();
    let n = 0;
    // claude-sonnet at $3/$15 per Mtok: 1000 in + 500 out = 10,500 credits.
    const charge = (mission: string | null, u: ReturnType<typeof usage>, at: Date) =>
      chargeUsage(s.db, {
        workspaceId: workspace.id,
        agentId: agent.id,
        source: mission ? { kind: "mission_run", id: mission, runId: run.id } : { kind: "run", runId: run.id },
        model: "claude-sonnet-4-6",
        usage: u,
        idempotencyKey: `${workspace.id}-${(n += 1)}`,
        occurredAt: at,
      });
    await charge(m1!.id, usage(1000, 500), ago(90 * 60_000)); // 10,500
    await charge(m1!.id, usage(500, 250), ago(150 * 60_000)); // 5,250
    await charge(m2!.id, usage(2000, 1000), ago(2 * HOUR + 1)); // 21,000
    await charge(null, usage(1000, 500), ago(30 * 60_000)); // 10,500, outside missions
    await charge(m1!.id, usage(1000, 500), ago(3 * DAY)); // before the range

    const read = async (group: string) => {
      const res = await reportRoute(jsonRequest(`/api/usage?from=${ago(DAY).toISOString()}&to=${T0.toISOString()}&group=${group}`, { cookie, workspace: workspace.slug }));
      expect(res.status).toBe(200);
      return (await res.json()) as UsageReport;
    };
    const report = await read("mission");
    expect(report.group).toBe("mission");
    expect(report.rows.map((r) => ({ key: r.key, label: r.label, calls: r.calls, inputTokens: r.inputTokens, outputTokens: r.outputTokens, credits: r.credits }))).toEqual([
      { key: m2!.id, label: "Pair: Check the notes", calls: 1, inputTokens: 2000, outputTokens: 1000, credits: 21_000 },
      { key: m1!.id, label: "Pair: Write the notes", calls: 2, inputTokens: 1500, outputTokens: 750, credits: 15_750 },
      { key: "", label: "Outside missions", calls: 1, inputTokens: 1000, outputTokens: 500, credits: 10_500 },
    ]);
    expect(report.totals.credits).toBe(47_250);
    expect(report.totals).toEqual((await read("source")).totals);
    const seriesOf = (key: string) => report.series.filter((p) => p.key === key).reduce((sum, p) => sum + p.credits, 0);
    expect([seriesOf(m1!.id), seriesOf(m2!.id), seriesOf("")]).toEqual([15_750, 21_000, 10_500]);
    expect(report.series.filter((p) => p.key === m1!.id).map((p) => p.at)).toEqual([ago(3 * HOUR).toISOString(), ago(2 * HOUR).toISOString()]);
  });
});
