import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as getComparisonRoute } from "../../app/api/comparisons/[id]/route";
import { POST as startComparisonRoute } from "../../app/api/comparisons/route";
import { GET as listCrewsRoute, POST as createCrewRoute } from "../../app/api/crews/route";
import { usageEvents } from "../../lib/db/schema";
import { judgeIfDue, offlineRubric, type ComparisonView } from "../../lib/missions/compare";
import { governorSettingsSchema, updateGovernor } from "../../lib/safety/governor";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent, settle } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

describe("comparisons: one goal on two crews, scored by the workspace's judge", () => {
  const server = useTestServer();

  async function read(cookie: string, id: string) {
    const res = await getComparisonRoute(jsonRequest(`/api/comparisons/${id}`, { cookie }), params({ id }));
    return { status: res.status, comparison: res.status === 200 ? ((await res.json()) as { comparison: ComparisonView }).comparison : null };
  }

  it("both missions finish, the offline judge scores each result per criterion, its calls are charged with source judge; members see no cost; another workspace gets 404", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    await updateGovernor(s.db, owner.workspaceId, owner.id, governorSettingsSchema.parse({ judgeModel: "offline" }), () => null);
    const { crews } = (await (await listCrewsRoute(jsonRequest("/api/crews", { cookie }))).json()) as { crews: { id: string; name: string }[] };
    const demo = crews.find((c) => c.name === "Research and announce")!;
    const solo = await makeAgent(s.db, owner.workspaceId, { model: "offline" });
    const single = await createCrewRoute(jsonRequest("/api/crews", { method: "POST", cookie, body: { name: "Alone", nodes: [{ id: "only", role: "Writer", agentHandle: solo.handle }], edges: [] } }));
    expect(single.status).toBe(201);
    const singleId = ((await single.json()) as { id: string }).id;

    const goal = "Summarise the launch";
    const same = await startComparisonRoute(jsonRequest("/api/comparisons", { method: "POST", cookie, body: { goal, crewIds: [demo.id, demo.id] } }));
    expect(same.status).toBe(400);
    const started = await startComparisonRoute(jsonRequest("/api/comparisons", { method: "POST", cookie, body: { goal, crewIds: [demo.id, singleId] } }));
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as { id: string };

    const judged = await settle(async () => {
      const c = (await read(cookie, id)).comparison!;
      return c.state === "judged" ? c : null;
    });
    expect(judged.judgeModel).toBe("offline");
    expect(judged.sides.map((side) => side.mission.crewId)).toEqual([demo.id, singleId]);
    for (const side of judged.sides) {
      expect(side.mission.state).toBe("succeeded");
      expect(side.mission.result).toBeTruthy();
      const expected = offlineRubric(goal, { state: "succeeded" }, side.mission.result!);
      expect(side.score!.criteria).toEqual([
        { criterion: "correctness", ...expected.correctness },
        { criterion: "completeness", ...expected.completeness },
        { criterion: "clarity", ...expected.clarity },
      ]);
      expect(side.score!.criteria.find((c) => c.criterion === "correctness")!.score).toBe(8);
      expect(side.total).toBe(expected.correctness.score + expected.completeness.score + expected.clarity.score);
      expect(side.approvalsNeeded).toBe(0);
      expect(side.wallMs).toBeGreaterThanOrEqual(0);
      expect(side.mission.inputTokens).toBeGreaterThan(0);
      expect(side.mission.credits).toBeGreaterThan(0);
    }

    // One judge call per side, charged with source judge and the comparison's id; judging again charges nothing more.
    await judgeIfDue({ db: s.db, models: s.runtime.deps.models }, id);
    const charged = await s.db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.sourceKind, "judge"), eq(usageEvents.sourceId, id)));
    expect(charged).toHaveLength(2);
    expect(charged.every((row) => row.workspaceId === owner.workspaceId && row.inputTokens > 0)).toBe(true);
    expect(judged.judgeCredits).toBe(charged.reduce((sum, row) => sum + row.credits, 0));

    // A member reads the scores and tokens, never what anything cost.
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const seen = (await read(await sessionCookie(s, member), id)).comparison!;
    expect(seen.sides.map((side) => side.total)).toEqual(judged.sides.map((side) => side.total));
    expect(seen.judgeCredits).toBeNull();
    expect(seen.sides.every((side) => side.mission.credits === null && side.mission.nodes.every((n) => n.credits === null))).toBe(true);

    // Another workspace sees neither the comparison nor can compare this workspace's crews.
    const outsider = await makeUser(s.db);
    await makeWorkspace(s.db, "Elsewhere", outsider);
    const theirs = await sessionCookie(s, outsider);
    expect((await read(theirs, id)).status).toBe(404);
    const foreign = await startComparisonRoute(jsonRequest("/api/comparisons", { method: "POST", cookie: theirs, body: { goal, crewIds: [demo.id, singleId] } }));
    expect(foreign.status).toBe(404);
  });
});
