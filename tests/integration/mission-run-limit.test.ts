import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { POST as startComparisonRoute } from "../../app/api/comparisons/route";
import { POST as startMissionRoute } from "../../app/api/crews/[id]/missions/route";
import { POST as createCrewRoute } from "../../app/api/crews/route";
import { agentRuns, missionRuns } from "../../lib/db/schema";
import { mostRunsOf } from "../../lib/missions/topology";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

/** Missions and comparisons start many runs at once: each counts every run it may start against the person's limit. */
describe("missions and comparisons count against the run-start limit", () => {
  const server = useTestServer();
  // Each test sets a small limit of its own; the server's own is put back after it, whatever it was.
  let restore: (() => void) | null = null;
  afterEach(() => {
    restore?.();
    restore = null;
  });

  async function setup(limit: number) {
    const s = server();
    const { CLAWDECK_RUN_START_LIMIT, CLAWDECK_RUN_START_WINDOW_SECONDS } = s.env;
    restore = () => Object.assign(s.env, { CLAWDECK_RUN_START_LIMIT, CLAWDECK_RUN_START_WINDOW_SECONDS });
    s.env.CLAWDECK_RUN_START_LIMIT = limit;
    s.env.CLAWDECK_RUN_START_WINDOW_SECONDS = 600;
    const owner = await demoOwner(s.db);
    const managerCookie = await sessionCookie(s, await makeUser(s.db, owner.workspaceId, "manager"));
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] });
    const crew = async (name: string, width: number) => {
      const nodes = Array.from({ length: width }, (_, i) => ({ id: `n${i}`, role: `worker ${i}`, agentHandle: agent.handle }));
      const res = await createCrewRoute(jsonRequest("/api/crews", { method: "POST", cookie: managerCookie, body: { name: `${name}-${Date.now().toString(36)}`, nodes, edges: [] } }));
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    return { s, owner, member, memberCookie: await sessionCookie(s, member), crew };
  }

  const missionsBy = async (userId: string) => (await server().db.select().from(missionRuns).where(eq(missionRuns.startedByUserId, userId))).length;
  const startMission = (cookie: string, crewId: string) =>
    startMissionRoute(jsonRequest(`/api/crews/${crewId}/missions`, { method: "POST", cookie, body: { goal: "Write the notes" } }), params({ id: crewId }));

  it("a review loop's later rounds count too: two nodes and three rounds may start six runs", () => {
    const shape = { nodes: [{ id: "m", role: "m" }, { id: "c", role: "c" }, { id: "x", role: "x" }], edges: [{ from: "m", to: "c" }, { from: "c", to: "m" }, { from: "c", to: "x" }], maxRounds: 3 };
    expect(mostRunsOf(shape)).toBe(7);
    expect(mostRunsOf({ nodes: shape.nodes, edges: [] })).toBe(3);
  });

  it("with 10 runs per window, a member starts two missions of a 4-node crew; the third is refused with 429 and creates nothing", async () => {
    const { member, memberCookie, crew } = await setup(10);
    const wide = await crew("wide", 4);
    expect((await startMission(memberCookie, wide)).status).toBe(202);
    expect((await startMission(memberCookie, wide)).status).toBe(202);
    const refused = await startMission(memberCookie, wide);
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body.code).toBe("rate_limited:runs");
    expect(body.message).toContain("up to 4 runs");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await missionsBy(member.id)).toBe(2);
  });

  it("a crew wider than the whole window is refused outright in words, and starts nothing", async () => {
    const { member, memberCookie, crew } = await setup(10);
    const wider = await crew("wider", 12);
    const refused = await startMission(memberCookie, wider);
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toBe("This starts up to 12 runs, more than the 10 one person may start in 600 s. Ask the operator to raise the limit.");
    expect(await missionsBy(member.id)).toBe(0);
  });

  it("a comparison counts both crews before either mission starts: over the limit, or with another workspace's crew, nothing starts", async () => {
    const { s, member, memberCookie, crew } = await setup(10);
    const a = await crew("a", 4);
    const b = await crew("b", 4);
    const outsider = await makeUser(s.db);
    const elsewhere = await makeWorkspace(s.db, "Elsewhere", outsider);
    const theirCrew = await createCrewRoute(
      jsonRequest("/api/crews", {
        method: "POST",
        cookie: await sessionCookie(s, outsider),
        body: { name: "theirs", nodes: [{ id: "x", role: "x", agentHandle: (await makeAgent(s.db, elsewhere.id, { model: "offline", tools: [] })).handle }], edges: [] },
      }),
    );
    expect(theirCrew.status).toBe(201);
    const theirs = ((await theirCrew.json()) as { id: string }).id;
    const compare = (crewIds: [string, string]) => startComparisonRoute(jsonRequest("/api/comparisons", { method: "POST", cookie: memberCookie, body: { goal: "Write the notes", crewIds } }));
    const foreign = await compare([a, theirs]);
    expect(foreign.status).toBe(404);
    expect(await missionsBy(member.id)).toBe(0);

    expect((await compare([a, b])).status).toBe(202);
    expect(await missionsBy(member.id)).toBe(2);
    const refused = await compare([a, b]);
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toContain("up to 8 runs");
    expect(await missionsBy(member.id)).toBe(2);
    const runs = await s.db.select().from(agentRuns).where(eq(agentRuns.onBehalfOfUserId, member.id));
    expect(runs.length).toBeLessThanOrEqual(8);
  });
});
