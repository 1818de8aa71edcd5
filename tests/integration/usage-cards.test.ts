import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chargeUsage, type UsageSource } from "../../lib/billing/ledger";
import { getUsageSummary } from "../../lib/billing/summary";
import { priceFor } from "../../lib/billing/prices";
import { rowsOf } from "../../lib/db/client";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { useTestServer } from "../support/server";
import { insertRun, usage } from "../support/usage";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("overview cards over the daily and hourly rollups", () => {
  const server = useTestServer();

  /**
   * A ledger of mixed calls: every source (agent runs, mission turns, the judge, the governor, the door), two
   * agents and none, three models (the offline one among them), placed over 65 days with rows a second either
   * side of UTC midnights and of the cards' period edges, so that a day's row and its hours must agree.
   */
  async function mixedLedger(name: string, to: Date) {
    const s = server();
    const owner = await makeUser(s.db);
    const workspace = await makeWorkspace(s.db, name, owner);
    const first = await makeAgent(s.db, workspace.id, { handle: `${name.toLowerCase()}-a` });
    const second = await makeAgent(s.db, workspace.id, { handle: `${name.toLowerCase()}-b` });
    const run = await insertRun(s.db, { workspaceId: workspace.id, agentId: first.id });
    const end = to.getTime();
    const midnight = Math.floor(end / DAY) * DAY;
    const offsets = [
      ...Array.from({ length: 70 }, (_, i) => ((i * 7919 + 13) % (65 * 24)) * HOUR + ((i * 104729) % HOUR)),
      ...[1, 7, 14, 30, 60].flatMap((days) => [days * DAY - 1000, days * DAY + 1000]),
      ...[0, 1, 2, 8, 31].flatMap((days) => [end - (midnight - days * DAY) - 1000, end - (midnight - days * DAY) + 1000]),
      17 * HOUR - 1000,
      17 * HOUR + 1000,
      1000,
    ].filter((o) => o > 0 && o < 66 * DAY);
    const sources = (i: number): UsageSource => {
      const kinds: UsageSource[] = [
        { kind: "run", runId: run.id },
        { kind: "mission_run", id: `mission-${i % 3}`, runId: run.id },
        { kind: "judge", id: `judge-${i}` },
        { kind: "governor", id: `gov-${i}` },
        { kind: "door", id: `door-${i % 2}` },
      ];
      return kinds[i % kinds.length]!;
    };
    const models = ["claude-sonnet-4-6", "claude-haiku-4-5", "offline"];
    for (const [i, offset] of offsets.entries()) {
      await chargeUsage(s.db, {
        workspaceId: workspace.id,
        agentId: i % 7 === 0 ? null : i % 2 ? first.id : second.id,
        source: sources(i),
        model: models[i % models.length]!,
        usage: usage(100 + ((i * 37) % 900), 10 + ((i * 11) % 300), i % 4 === 0 ? 500 : 0, i % 5 === 0 ? 40 : 0),
        idempotencyKey: `cards-${workspace.id}-${i}`,
        occurredAt: new Date(end - offset),
      });
    }
    return { s, workspace, first, second, count: offsets.length };
  }

  /** The same figures straight from the raw ledger: what the cards must equal. */
  async function fromLedger(workspaceId: string, from: Date, to: Date) {
    const s = server();
    const span = to.getTime() - from.getTime();
    const sum = async (what: string, a: Date, b: Date, extra = "") => {
      const [row] = rowsOf<{ v: string }>(
        await s.db.execute(
          sql`select coalesce(sum(${sql.raw(what)}), 0)::text as v from usage_events
              where workspace_id = ${workspaceId} and created_at >= ${a.toISOString()}::timestamptz and created_at < ${b.toISOString()}::timestamptz ${sql.raw(extra)}`,
        ),
      );
      return Number(row!.v);
    };
    const back = (ms: number) => new Date(to.getTime() - ms);
    const periods = [
      { key: "range", from, before: new Date(from.getTime() - span) },
      { key: "7d", from: back(7 * DAY), before: back(14 * DAY) },
      { key: "30d", from: back(30 * DAY), before: back(60 * DAY) },
    ];
    const top = rowsOf<{ agent_id: string | null; credits: string; calls: string }>(
      await s.db.execute(sql`select agent_id, sum(credits)::text as credits, count(*)::text as calls from usage_events
        where workspace_id = ${workspaceId} and created_at >= ${back(7 * DAY).toISOString()}::timestamptz and created_at < ${to.toISOString()}::timestamptz
        group by agent_id having sum(credits) > 0 order by sum(credits) desc, agent_id limit 5`),
    );
    return {
      tokens: await sum("input_tokens + output_tokens", from, to),
      calls: await sum("1", from, to),
      periods: await Promise.all(
        periods.map(async (p) => ({ key: p.key, credits: await sum("credits", p.from, to), previousCredits: await sum("credits", p.before, p.from) })),
      ),
      top: top.map((t) => ({ agentId: t.agent_id, credits: Number(t.credits), calls: Number(t.calls) })),
      nominal: await sum("credits", back(30 * DAY), to, "and model = 'offline'"),
      savedByCaching: { range: await cacheSaving(workspaceId, from, to), "30d": await cacheSaving(workspaceId, back(30 * DAY), to) },
    };
  }

  /**
   * What caching saved from the raw ledger: per model, cache reads at the input price less the read price, less cache
   * writes at the write price less the input price (a dollar per Mtok is a credit per token).
   */
  async function cacheSaving(workspaceId: string, from: Date, to: Date) {
    const rows = rowsOf<{ model: string; read: string; write: string }>(
      await server().db.execute(sql`select model, sum(cache_read_tokens)::text as read, sum(cache_write_tokens)::text as write from usage_events
        where workspace_id = ${workspaceId} and created_at >= ${from.toISOString()}::timestamptz and created_at < ${to.toISOString()}::timestamptz group by model`),
    );
    return Math.round(
      rows.reduce((total, r) => {
        const { price } = priceFor(r.model);
        return total + Number(r.read) * (price.input - price.cacheRead) - Number(r.write) * (price.cacheWrite - price.input);
      }, 0),
    );
  }

  async function expectCardsEqualLedger(workspaceId: string, from: Date, to: Date) {
    const cards = await getUsageSummary(server().db, workspaceId, { from, to, includeSpend: true, now: to });
    const ledger = await fromLedger(workspaceId, from, to);
    expect(cards.throughput.tokens).toBe(ledger.tokens);
    expect(cards.activity.modelCalls).toBe(ledger.calls);
    expect(cards.spend!.periods.map((p) => ({ key: p.key, credits: p.credits, previousCredits: p.previousCredits }))).toEqual(ledger.periods);
    expect(cards.spend!.topAgents.map((t) => ({ agentId: t.agentId, credits: t.credits, calls: t.calls }))).toEqual(ledger.top);
    expect(cards.spend!.nominalCredits).toBe(ledger.nominal);
    expect(cards.spend!.savedByCaching).toEqual(ledger.savedByCaching);
    expect(ledger.savedByCaching["30d"]).toBeGreaterThan(0);
    // Members get the same tokens and calls without spend.
    const member = await getUsageSummary(server().db, workspaceId, { from, to, includeSpend: false, now: to });
    expect(member.spend).toBeNull();
    expect([member.throughput.tokens, member.activity.modelCalls]).toEqual([ledger.tokens, ledger.calls]);
    return { cards, ledger };
  }

  it("today, the last 24 hours, 30 days and a range across midnight give the raw ledger's sums for every period, agent and model", async () => {
    // Ends at 17:00 UTC: the 7-, 30- and 60-day edges fall inside days, so those days are read hour by hour.
    const to = new Date(Math.floor(Date.now() / DAY) * DAY - DAY + 17 * HOUR);
    const { workspace, count } = await mixedLedger("Cards", to);
    const { ledger } = await expectCardsEqualLedger(workspace.id, new Date(to.getTime() - 17 * HOUR), to);
    expect(ledger.periods.every((p) => p.credits > 0 && p.previousCredits > 0)).toBe(true);
    expect(ledger.nominal).toBeGreaterThan(0);
    expect(ledger.top.length).toBeGreaterThan(1);
    await expectCardsEqualLedger(workspace.id, new Date(to.getTime() - DAY), to);
    await expectCardsEqualLedger(workspace.id, new Date(to.getTime() - 30 * DAY), to);
    // From 20:00 two days back over midnight to 05:00: ranges that are not whole days.
    const midnight = Math.floor(to.getTime() / DAY) * DAY - DAY;
    await expectCardsEqualLedger(workspace.id, new Date(midnight - 4 * HOUR), new Date(midnight + 5 * HOUR));
    // The daily rollups equal the ledger day by day, for each agent, model and source.
    const byDay = (table: "usage_events" | "usage_rollups_daily") =>
      server().db.execute(
        sql.raw(
          table === "usage_events"
            ? `select date_trunc('day', created_at, 'UTC') as day, agent_id, model, source_kind::text as source, count(*)::int as calls, sum(input_tokens)::int as input, sum(output_tokens)::int as output, sum(cache_read_tokens)::int as cache_read, sum(credits)::int as credits from usage_events where workspace_id = '${workspace.id}' group by 1,2,3,4 order by 1,2,3,4`
            : `select day, agent_id, model, source_kind::text as source, calls::int as calls, input_tokens::int as input, output_tokens::int as output, cache_read_tokens::int as cache_read, credits::int as credits from usage_rollups_daily where workspace_id = '${workspace.id}' order by 1,2,3,4`,
        ),
      );
    const days = rowsOf<{ source: string; calls: number }>(await byDay("usage_events"));
    expect(new Set(days.map((d) => d.source))).toEqual(new Set(["run", "mission_run", "judge", "governor", "door"]));
    expect(days.reduce((n, d) => n + d.calls, 0)).toBe(count);
    expect(rowsOf(await byDay("usage_rollups_daily"))).toEqual(days);
  });

  it("a charge made after the first read moves today's and the week's figures by exactly its credits, also across midnight", async () => {
    const to = new Date(Math.floor(Date.now() / HOUR) * HOUR + HOUR);
    const { s, workspace, first } = await mixedLedger("Later", to);
    const from = new Date(to.getTime() - 30 * HOUR);
    const before = await expectCardsEqualLedger(workspace.id, from, to);
    const charged = await chargeUsage(s.db, {
      workspaceId: workspace.id,
      agentId: first.id,
      source: { kind: "door", id: "door-late" },
      model: "claude-sonnet-4-6",
      usage: usage(1000, 500),
      idempotencyKey: `cards-${workspace.id}-late`,
      occurredAt: new Date(to.getTime() - 26 * HOUR),
    });
    expect(charged.charged).toBe(true);
    const after = await expectCardsEqualLedger(workspace.id, from, to);
    const credits = (r: typeof before, key: string) => r.cards.spend!.periods.find((p) => p.key === key)!.credits;
    expect(credits(after, "range") - credits(before, "range")).toBe(charged.credits);
    expect(credits(after, "7d") - credits(before, "7d")).toBe(charged.credits);
    expect(after.cards.throughput.tokens - before.cards.throughput.tokens).toBe(1500);
  });
});
