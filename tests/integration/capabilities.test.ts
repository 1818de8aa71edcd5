import fs from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { canReadRun, type RunTrigger, type Viewer } from "../../lib/access/access";
import { can, capabilities, rolesFor, type Capability } from "../../lib/access/capabilities";
import { readableRunsWhere } from "../../lib/access/reads";
import { agentRuns, type Role } from "../../lib/db/schema";
import { createChat } from "../../lib/chats/chats";
import { roles } from "../../lib/access/role-names";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { APP_ORIGIN, params, sessionCookie, useTestServer } from "../support/server";
import { describeRoute } from "../../lib/http/route";

type Handler = (req: Request, context?: { params: Promise<Record<string, string>> }) => Promise<Response>;

/**
 * Every route handler that names a capability, as each describes itself (`describeRoute`): a new one is covered as it
 * is written.
 */
async function routesWithCapability(): Promise<{ method: string; url: string; capability: Capability; handler: Handler }[]> {
  const root = path.resolve("app/api");
  const found: { method: string; url: string; capability: Capability; handler: Handler }[] = [];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") files.push(full);
    }
  };
  walk(root);
  for (const file of files) {
    const handlers = (await import(file)) as Record<string, Handler>;
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const capability = describeRoute(handlers[method])?.can;
      if (!capability) continue;
      const url = `/api/${path.relative(root, path.dirname(file)).replace(/\[[^\]]+\]/g, "00000000-0000-4000-8000-000000000000")}`;
      found.push({ method, url, capability, handler: handlers[method]! });
    }
  }
  return found;
}

describe("one table of who may do what", () => {
  const server = useTestServer();

  it("names every action once with the least role that may take it; roles higher up may take it too", () => {
    for (const [action, least] of Object.entries(capabilities) as [Capability, Role][]) {
      expect(rolesFor(action)).toContain(least);
      expect(rolesFor(action)).toEqual(roles.slice(0, roles.indexOf(least) + 1));
      expect(can("member", action)).toBe(least === "member");
    }
    expect(can("reviewer", "approvals.decide")).toBe(true);
    expect(can("reviewer", "members.manage")).toBe(false);
    expect(can("manager", "owners.manage")).toBe(false);
  });

  it("every route that names a capability refuses a person below it with 403 before reading anything they sent, and reads the body of a person who may", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookies = Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await sessionCookie(s, role === "owner" ? owner : await makeUser(s.db, owner.workspaceId, role))] as const)));
    const routes = await routesWithCapability();
    expect(routes.length).toBeGreaterThanOrEqual(25);
    for (const r of routes) {
      const handler = r.handler;
      for (const role of roles) {
        // A body no route can read: refused for what it is only once the person may make the request at all.
        const req = new Request(new URL(r.url, APP_ORIGIN), {
          method: r.method,
          headers: { cookie: cookies[role]!, origin: APP_ORIGIN, host: new URL(APP_ORIGIN).host, "content-type": "text/plain" },
          body: r.method === "GET" ? undefined : "not json",
        });
        const res = await handler(req, params({ id: "00000000-0000-4000-8000-000000000000", tokenId: "00000000-0000-4000-8000-000000000000", userId: "00000000-0000-4000-8000-000000000000" }));
        const body = (await res.json().catch(() => ({}))) as { code?: string };
        const label = `${r.method} ${r.url} as ${role}`;
        if (can(role, r.capability)) expect(body.code ?? String(res.status), label).not.toBe("forbidden:role");
        else expect([res.status, body.code], label).toEqual([403, "forbidden:role"]);
      }
    }
  });

  it("the SQL form of the private-run rule lists exactly the runs the TypeScript rule lets each viewer read", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const other = await makeUser(s.db, owner.workspaceId, "member");
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] });
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: agent.id } });
    const triggers: RunTrigger[] = ["chat", "agent_message", "room_post", "mission", "door"];
    const made: string[] = [];
    for (const trigger of triggers) {
      for (const userId of [member.id, other.id, null]) {
        for (const sessionId of trigger === "chat" ? [chat.id] : [null, chat.id]) {
          const [run] = await s.db
            .insert(agentRuns)
            .values({ workspaceId: owner.workspaceId, agentId: agent.id, trigger, userId, sessionId, model: "offline", state: "succeeded" })
            .returning({ id: agentRuns.id });
          made.push(run!.id);
        }
      }
    }
    const rows = await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id));
    expect(rows).toHaveLength(made.length);
    for (const role of roles) {
      const viewer: Viewer = { userId: member.id, role };
      const listed = await s.db
        .select({ id: agentRuns.id })
        .from(agentRuns)
        .where(and(eq(agentRuns.agentId, agent.id), readableRunsWhere(viewer)));
      const expected = rows.filter((run) => canReadRun(viewer, run)).map((run) => run.id);
      expect(listed.map((r) => r.id).sort(), role).toEqual(expected.sort());
      if (role === "member") expect(expected.length).toBeLessThan(rows.length);
    }
  });
});
