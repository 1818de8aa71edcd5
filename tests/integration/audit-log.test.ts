import crypto from "node:crypto";
import { and, eq, like, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as auditRoute } from "../../app/api/audit/route";
import { GET as exportRoute } from "../../app/api/audit/export/route";
import { GET as retentionRoute, PUT as setRetentionRoute } from "../../app/api/audit/retention/route";
import { pruneAuditLogs } from "../../lib/audit-log/retention";
import { auditLog, memberships } from "../../lib/db/schema";
import { checkSignIn } from "../../lib/http/auth";
import { recordAudit } from "../../lib/audit";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

describe("the audit log: read by managers and owners, filtered, paged, exported, and never changed", () => {
  const server = useTestServer();

  async function setup() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `Audit ${crypto.randomBytes(3).toString("hex")}`, owner);
    const [max, mia] = [await makeUser(s.db, ws.id, "manager"), await makeUser(s.db, ws.id, "member")];
    const hookId = crypto.randomUUID();
    // Four entries after the workspace's own, oldest first; one with details a spreadsheet must not run.
    await recordAudit(s.db, { workspaceId: ws.id, actor: { kind: "user", id: owner.id }, action: "policy.updated", detail: { note: '=HYPERLINK("x"), "quoted"\nline' } });
    await recordAudit(s.db, { workspaceId: ws.id, actor: { kind: "user", id: max.id }, action: "webhook.created", target: { type: "webhook", id: hookId }, detail: { url: "https://h.example" } });
    await recordAudit(s.db, { workspaceId: ws.id, actor: { kind: "system" }, action: "approval.expired", target: { type: "approval", id: crypto.randomUUID() } });
    await recordAudit(s.db, { workspaceId: ws.id, actor: { kind: "user", id: max.id }, action: "webhook.deleted", target: { type: "webhook", id: hookId } });
    const as = async (person: { id: string; email: string; name: string }) => ({ cookie: await sessionCookie(s, person), workspace: ws.slug });
    return { s, ws, owner, max, mia, hookId, as };
  }
  const read = async (as: { cookie: string; workspace: string }, query = "") => auditRoute(jsonRequest(`/api/audit${query}`, as));

  it("lists who did what to which object, newest first, with filters by person, action family, object and time, a page at a time; members may not read it", async () => {
    const t = await setup();
    expect((await read(await t.as(t.mia))).status).toBe(403);
    const maxAs = await t.as(t.max);
    const all = await (await read(maxAs)).json();
    expect(all.items.map((i: { action: string }) => i.action)).toEqual(["webhook.deleted", "approval.expired", "webhook.created", "policy.updated", "workspace.created"]);
    expect(all.items[0]).toMatchObject({ actor: { kind: "user", id: t.max.id, name: t.max.name }, object: { type: "webhook", id: t.hookId } });
    expect(all.items[1].actor).toEqual({ kind: "system", id: null, name: null });

    const byOwner = await (await read(maxAs, `?actor=${t.owner.id}`)).json();
    expect(byOwner.items.map((i: { action: string }) => i.action)).toEqual(["policy.updated", "workspace.created"]);
    const hooks = await (await read(maxAs, "?action=webhook")).json();
    expect(hooks.items.map((i: { action: string }) => i.action)).toEqual(["webhook.deleted", "webhook.created"]);
    const exact = await (await read(maxAs, "?action=webhook.created")).json();
    expect(exact.items).toHaveLength(1);
    const one = await (await read(maxAs, `?object=webhook:${t.hookId}`)).json();
    expect(one.items).toHaveLength(2);
    const future = await (await read(maxAs, `?from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`)).json();
    expect(future.items).toEqual([]);

    const first = await (await read(maxAs, "?limit=3")).json();
    expect(first.items).toHaveLength(3);
    const second = await (await read(maxAs, `?limit=3&before=${first.next}`)).json();
    expect(second).toMatchObject({ items: [{ action: "policy.updated" }, { action: "workspace.created" }], next: null });

    for (const bad of ["?action=DROP%20TABLE", "?object=webhook:%27", "?limit=500", "?from=yesterday"]) {
      const res = await read(maxAs, bad);
      expect(res.status).toBe(400);
    }
  });

  it("exports a range as CSV (quoted, spreadsheet formulas defused) and JSON Lines; the log refuses every change, even from the database's own user", async () => {
    const t = await setup();
    const maxAs = await t.as(t.max);
    await recordAudit(t.s.db, { workspaceId: t.ws.id, actor: { kind: "system" }, action: "crew.updated", target: { type: "crew", id: "=SUM(A1)" } });
    const csv = await exportRoute(jsonRequest("/api/audit/export?format=csv", maxAs));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="audit-${t.ws.slug}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    const text = await csv.text();
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("id,at,actor_kind,actor_id,actor_name,action,object_type,object_id,details");
    expect(lines[1]).toContain(`,user,${t.owner.id},${t.owner.name},workspace.created,workspace,${t.ws.id},`);
    expect(lines[2]).toContain(`,user,${t.owner.id},${t.owner.name},policy.updated,,,`);
    // The details hold a formula, quotes and a line break: one quoted field that a spreadsheet shows as text.
    expect(text).toContain('"{""note"":""=HYPERLINK(\\""x\\""), \\""quoted\\""\\nline""}"');
    expect(lines.filter((l) => l.length > 0)).toHaveLength(7);
    expect(lines[6]).toContain(",crew.updated,crew,'=SUM(A1),{}");

    const jsonl = await exportRoute(jsonRequest("/api/audit/export?format=jsonl&action=webhook", maxAs));
    const rows = (await jsonl.text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.map((r) => r.action)).toEqual(["webhook.created", "webhook.deleted"]);
    expect(rows[0]).toMatchObject({ actor: { id: t.max.id, name: t.max.name }, object: { type: "webhook", id: t.hookId }, details: { url: "https://h.example" } });
    expect((await exportRoute(jsonRequest("/api/audit/export?format=jsonl", await t.as(t.mia)))).status).toBe(403);

    await expect(t.s.db.update(auditLog).set({ action: "nothing.happened" }).where(eq(auditLog.workspaceId, t.ws.id))).rejects.toThrow();
    await expect(t.s.db.delete(auditLog).where(eq(auditLog.workspaceId, t.ws.id))).rejects.toThrow();
    const [{ n }] = (await t.s.db.select({ n: sql<number>`count(*)::int` }).from(auditLog).where(eq(auditLog.workspaceId, t.ws.id))) as [{ n: number }];
    expect(n).toBe(6);
  });

  it("records each sign-in, wrong password and sign-out in every workspace of the person, and nothing for an address without an account", async () => {
    const t = await setup();
    const other = await makeWorkspace(t.s.db, `Other ${crypto.randomBytes(3).toString("hex")}`, t.owner);
    await t.s.db.insert(memberships).values({ workspaceId: other.id, userId: t.max.id, role: "reviewer" });
    expect(await checkSignIn(t.max.email, "not-the-password", new Headers())).toEqual({ wrong: true });
    expect(await checkSignIn(t.max.email, "password-123", new Headers())).toMatchObject({ user: { id: t.max.id } });
    const failures = async () => (await t.s.db.select({ id: auditLog.id }).from(auditLog).where(eq(auditLog.action, "auth.sign_in_failed"))).length;
    const before = await failures();
    expect(await checkSignIn(`nobody-${crypto.randomBytes(3).toString("hex")}@test.local`, "password-123", new Headers())).toEqual({ wrong: true });
    expect(await failures()).toBe(before);
    for (const ws of [t.ws, other]) {
      const mine = await t.s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, ws.id), like(auditLog.action, "auth.%"))).orderBy(auditLog.id);
      expect(mine.map((a) => [a.action, a.actorId])).toEqual([
        ["auth.sign_in_failed", t.max.id],
        ["auth.signed_in", t.max.id],
      ]);
    }
    const page = await (await read(await t.as(t.max), `?actor=${t.max.id}&action=auth`)).json();
    expect(page.items.map((i: { action: string }) => i.action)).toEqual(["auth.signed_in", "auth.sign_in_failed"]);
  });

  it("keeps entries for the retention an owner chooses (a year by default, never under 30 days); only the sweep removes older ones, and says so", async () => {
    const t = await setup();
    const ownerAs = await t.as(t.owner);
    expect(await (await retentionRoute(jsonRequest("/api/audit/retention", await t.as(t.max)))).json()).toEqual({ days: 365 });
    const put = (as: { cookie: string; workspace: string }, days: number) => setRetentionRoute(jsonRequest("/api/audit/retention", { method: "PUT", body: { days }, ...as }));
    expect((await put(await t.as(t.max), 90)).status).toBe(403);
    expect((await put(ownerAs, 10)).status).toBe(400);
    expect(await (await put(ownerAs, 90)).json()).toEqual({ days: 90 });

    const other = await makeWorkspace(t.s.db, `Kept ${crypto.randomBytes(3).toString("hex")}`, t.owner);
    const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);
    const old = (workspaceId: string, d: number, action: string) => ({ workspaceId, actorKind: "system" as const, action, createdAt: daysAgo(d) });
    await t.s.db.insert(auditLog).values([old(t.ws.id, 120, "old.one"), old(t.ws.id, 91, "old.two"), old(t.ws.id, 40, "kept.one"), old(other.id, 120, "kept.other")]);

    // Nobody deletes by hand, not even naming a workspace and a cut-off inside 30 days, or for another workspace.
    await expect(
      t.s.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('clawdeck.audit_prune_workspace', ${t.ws.id}, true), set_config('clawdeck.audit_prune_before', ${new Date().toISOString()}, true)`);
        await tx.delete(auditLog).where(and(eq(auditLog.workspaceId, t.ws.id), eq(auditLog.action, "policy.updated")));
      }),
    ).rejects.toThrow();
    await expect(
      t.s.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('clawdeck.audit_prune_workspace', ${t.ws.id}, true), set_config('clawdeck.audit_prune_before', ${new Date().toISOString()}, true)`);
        await tx.delete(auditLog).where(eq(auditLog.workspaceId, other.id));
      }),
    ).rejects.toThrow();

    expect(await pruneAuditLogs(t.s.db)).toBeGreaterThanOrEqual(2);
    const left = async (workspaceId: string) => (await t.s.db.select().from(auditLog).where(eq(auditLog.workspaceId, workspaceId)).orderBy(auditLog.id)).map((e) => e.action);
    expect(await left(t.ws.id)).toEqual(["workspace.created", "policy.updated", "webhook.created", "approval.expired", "webhook.deleted", "audit.retention_set", "kept.one", "audit.pruned"]);
    expect(await left(other.id)).toEqual(["workspace.created", "kept.other"]);
    const [pruned] = await t.s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, t.ws.id), eq(auditLog.action, "audit.pruned")));
    expect(pruned!.detail).toMatchObject({ removed: 2, retentionDays: 90 });
    // A second pass finds nothing more to remove, and records nothing.
    await pruneAuditLogs(t.s.db);
    expect((await left(t.ws.id)).filter((a) => a === "audit.pruned")).toHaveLength(1);
  });
});
