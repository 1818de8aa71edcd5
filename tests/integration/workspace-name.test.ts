import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { PUT as putName } from "../../app/api/workspace/name/route";
import { auditLog, workspaces } from "../../lib/db/schema";
import { demoOwner, makeUser } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

describe("renaming the workspace", () => {
  const server = useTestServer();
  const rowOf = async (workspaceId: string) =>
    (await server().db.select({ name: workspaces.name, slug: workspaces.slug }).from(workspaces).where(eq(workspaces.id, workspaceId)))[0]!;
  const rename = async (person: { id: string; email: string; name: string }, body: unknown) =>
    putName(jsonRequest("/api/workspace/name", { method: "PUT", cookie: await sessionCookie(server(), person), body }));

  it("a manager renames it: the name is trimmed, the address stays, and the change is audited once", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const before = await rowOf(owner.workspaceId);
    const res = await rename(manager, { name: "  Launch team  " });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Launch team" });
    expect(await rowOf(owner.workspaceId)).toEqual({ name: "Launch team", slug: before.slug });
    // The same name again changes nothing and writes no second entry.
    expect((await rename(manager, { name: "Launch team" })).status).toBe(200);
    const audit = await s.db.select().from(auditLog).where(eq(auditLog.action, "workspace.renamed"));
    expect(audit.map((a) => [a.actorId, a.detail])).toEqual([[manager.id, { from: before.name, to: "Launch team" }]]);
  });

  it("refuses a blank or overlong name with 400, and members and reviewers with 403; nothing changes", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const before = await rowOf(owner.workspaceId);
    for (const name of ["   ", "x".repeat(81), 42]) {
      const res = await rename(owner, { name });
      expect(res.status, String(name)).toBe(400);
      expect((await res.json()).code).toBe("bad_request:body");
    }
    for (const role of ["member", "reviewer"] as const) {
      const res = await rename(await makeUser(s.db, owner.workspaceId, role), { name: "Mine now" });
      expect(res.status, role).toBe(403);
      expect((await res.json()).code).toBe("forbidden:role");
    }
    expect(await rowOf(owner.workspaceId)).toEqual(before);
  });
});
