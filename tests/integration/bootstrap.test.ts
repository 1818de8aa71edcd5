import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, auditLog, memberships, workspaces } from "../../lib/db/schema";
import { rowsOf } from "../../lib/db/client";
import { bootstrapIfEmpty } from "../../lib/workspaces/bootstrap";
import { verifyCredentials } from "../../lib/workspaces/users";
import { OWNER_EMAIL, OWNER_PASSWORD, useTestServer } from "../support/server";

describe("first start", () => {
  const server = useTestServer();

  it("creates the demo workspace with scout, herald, atlas and forge and an owner who can sign in", async () => {
    const { db } = server();
    const [ws] = await db.select().from(workspaces).where(eq(workspaces.slug, "demo"));
    expect(ws?.name).toBe("Demo");
    const handles = (await db.select({ handle: agents.handle }).from(agents).where(eq(agents.workspaceId, ws!.id))).map((a) => a.handle);
    expect(handles.sort()).toEqual(["atlas", "forge", "herald", "scout"]);
    const owner = await verifyCredentials(db, OWNER_EMAIL, OWNER_PASSWORD);
    expect(owner?.email).toBe(OWNER_EMAIL);
    const [membership] = await db.select().from(memberships).where(eq(memberships.userId, owner!.id));
    expect(membership?.role).toBe("owner");
    expect(await verifyCredentials(db, OWNER_EMAIL, "not-the-password")).toBeNull();
  });

  it("does nothing on a database that already has users", async () => {
    const { db } = server();
    expect(await bootstrapIfEmpty(db, {})).toBeUndefined();
    const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(workspaces);
    expect(Number(count!.n)).toBe(1);
  });

  it("keeps the audit log append-only", async () => {
    const { db } = server();
    const [entry] = await db.select().from(auditLog).limit(1);
    expect(entry?.action).toBeDefined();
    await expect(db.update(auditLog).set({ action: "changed" }).where(eq(auditLog.id, entry!.id))).rejects.toThrow();
    await expect(db.delete(auditLog).where(eq(auditLog.id, entry!.id))).rejects.toThrow();
    const rows = rowsOf<{ action: string }>(await db.execute(sql`select action from audit_log where id = ${entry!.id}`));
    expect(rows[0]?.action).toBe(entry!.action);
  });
});
