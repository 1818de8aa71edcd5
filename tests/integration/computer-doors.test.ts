import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as postToRoomRoute } from "../../app/api/rooms/[id]/messages/route";
import { POST as createCrewRoute } from "../../app/api/crews/route";
import { POST as startMissionRoute } from "../../app/api/crews/[id]/missions/route";
import { agentRuns, approvals, steps } from "../../lib/db/schema";
import { createRoom } from "../../lib/rooms/rooms";
import { approvalSteps } from "../support/approvals";
import { connectDoor, doorTokenFor, resultText } from "../support/door";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, settle } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const TOOLS = ["shell.exec", "files.read", "files.write", "files.list", "files.delete"];
/** A command that looks for what the sandbox must not show, through any door. */
const PROBE = "cat /etc/shadow 2>&1 | head -1; cat /proc/1/environ | tr '\\0' ' '; echo; id -u";

describe("an agent's computer through every door: a room, a mission node, the MCP door", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: "2" } });
  const { decide } = approvalSteps(server);

  it("a person's post in a room runs the command in the sandbox, like a chat", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: TOOLS });
    const room = await createRoom(s.db, owner.workspaceId, owner.id, { name: `builds-${agent.handle}`, subject: "builds", agentIds: [agent.id] });
    const posted = await postToRoomRoute(jsonRequest(`/api/rooms/${room.id}/messages`, { method: "POST", cookie: await sessionCookie(s, owner), body: { text: `run ${PROBE}` } }), params({ id: room.id }));
    expect(posted.status).toBe(202);
    const { runIds } = (await posted.json()) as { runIds: string[] };
    const step = await settle(async () => (await s.db.select().from(steps).where(and(eq(steps.runId, runIds[0]!), eq(steps.status, "succeeded"))).orderBy(asc(steps.position)))[0]);
    const out = step.output as { stdout: string };
    expect(out.stdout).toMatch(/No such file or directory/);
    expect(out.stdout).not.toMatch(/AUTH_SECRET|DATABASE_URL|CLAWDECK_/);
    expect(out.stdout.trim().split("\n").at(-1)).toBe("1000");
  });

  it("a mission node whose instructions hold a command runs it in the sandbox, as the node's run", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: TOOLS });
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const cookie = await sessionCookie(s, manager);
    const crew = await createCrewRoute(
      jsonRequest("/api/crews", { method: "POST", cookie, body: { name: `build-${agent.handle}`, nodes: [{ id: "build", role: "Builder", agentHandle: agent.handle, instructions: `run ${PROBE}` }], edges: [] } }),
    );
    expect(crew.status).toBe(201);
    const { id: crewId } = (await crew.json()) as { id: string };
    const started = await startMissionRoute(jsonRequest(`/api/crews/${crewId}/missions`, { method: "POST", cookie, body: { goal: "Check the build box" } }), params({ id: crewId }));
    expect(started.status).toBe(202);
    const step = await settle(async () => {
      const [row] = await s.db
        .select({ status: steps.status, output: steps.output, tool: steps.tool })
        .from(steps)
        .innerJoin(agentRuns, eq(agentRuns.id, steps.runId))
        .where(and(eq(agentRuns.agentId, agent.id), eq(agentRuns.trigger, "mission"), eq(steps.tool, "shell.exec"), eq(steps.status, "succeeded")));
      return row;
    });
    const out = step.output as { stdout: string };
    expect(out.stdout).toMatch(/No such file or directory/);
    expect(out.stdout).not.toMatch(/AUTH_SECRET|DATABASE_URL|CLAWDECK_/);
    expect(out.stdout.trim().split("\n").at(-1)).toBe("1000");
  });

  it("a command through the door is untrusted: it waits for a reviewer (the token's maker may not approve it), then runs in the sandbox", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: TOOLS });
    const token = await doorTokenFor(s.db, agent, owner.id, "ci");
    const client = await connectDoor(token);
    const first = await client.callTool({ name: "shell.exec", arguments: { command: PROBE } });
    expect(first.isError).toBe(true);
    const [approval] = await s.db.select().from(approvals).where(and(eq(approvals.agentId, agent.id), eq(approvals.status, "pending")));
    expect([approval?.tool, approval?.category]).toEqual(["shell.exec", "tainted_egress"]);
    expect(resultText(first)).toContain(approval!.id);
    // The token's maker asked for it: four eyes hold for what comes through the door.
    expect((await decide(owner, approval!.id)).status).toBe(403);
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    expect((await decide(reviewer, approval!.id)).status).toBe(200);
    const again = await client.callTool({ name: "shell.exec", arguments: { command: PROBE } });
    expect(again.isError).toBeFalsy();
    const text = resultText(again);
    expect(text).toMatch(/No such file or directory/);
    expect(text).not.toMatch(/AUTH_SECRET|DATABASE_URL|CLAWDECK_/);
    const [run] = await s.db.select({ taint: agentRuns.taint }).from(agentRuns).where(eq(agentRuns.id, approval!.runId));
    expect(run?.taint.map((t) => t.source)).toContain("door:ci");
    await client.close();
  });

  it("a command with the network through the door waits for a reviewer, then meets the egress proxy's rules like any other", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: TOOLS });
    const token = await doorTokenFor(s.db, agent, owner.id, "laptop");
    const client = await connectDoor(token);
    const probe = "curl -sS http://127.0.0.1:5432/; curl -sS -m 5 http://169.254.169.254/latest/meta-data/";
    const first = await client.callTool({ name: "shell.exec", arguments: { command: probe, network: true } });
    expect(first.isError).toBe(true);
    const [approval] = await s.db.select().from(approvals).where(and(eq(approvals.agentId, agent.id), eq(approvals.status, "pending")));
    expect(approval?.preview).toMatchObject({ fields: expect.arrayContaining([{ label: "Network", value: "On: public addresses only, through Clawdeck's proxy" }]) });
    expect((await decide(owner, approval!.id)).status).toBe(403);
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    expect((await decide(reviewer, approval!.id)).status).toBe(200);
    const again = await client.callTool({ name: "shell.exec", arguments: { command: probe, network: true } });
    const text = resultText(again);
    expect(text).toContain("Refused to connect to 127.0.0.1:5432: 127.0.0.1 is a loopback address.");
    expect(text).toContain("Refused to connect to 169.254.169.254:80: 169.254.169.254 is a link-local address (the cloud metadata service).");
    await client.close();
  });
});
