import { eq, is, sql, TransactionRollbackError } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { rowsOf } from "../../lib/db/client";
import { statement } from "../../lib/db/statements";
import { users } from "../../lib/db/schema";
import { makeUser } from "../support/fixtures";
import { useTestServer } from "../support/server";

describe("statements on PostgreSQL", () => {
  const server = useTestServer();

  it("answers the same through the client, in and out of transactions and savepoints", async () => {
    const s = server();
    const [owner] = await s.db.select().from(users).limit(1);
    const byEmail = () => s.db.select({ id: users.id }).from(users).where(eq(users.email, owner!.email));
    expect(await byEmail()).toEqual([{ id: owner!.id }]);
    expect(await byEmail()).toEqual([{ id: owner!.id }]);
    const inside = await s.db.transaction(async (tx) => {
      const first = await tx.select({ id: users.id }).from(users).where(eq(users.email, owner!.email));
      const nested = await tx.transaction(async (sp) => sp.select({ id: users.id }).from(users).where(eq(users.email, owner!.email)));
      return [first, nested];
    });
    expect(inside).toEqual([[{ id: owner!.id }], [{ id: owner!.id }]]);
    // A failed statement inside a savepoint rolls back only that savepoint.
    await s.db.transaction(async (tx) => {
      await expect(tx.transaction(async (sp) => sp.execute(sql`select 1 / ${0}::int`))).rejects.toThrow();
      expect(rowsOf<{ n: number }>(await tx.execute(sql`select ${41}::int + 1 as n`))[0]!.n).toBe(42);
    });
  });

  it("a statement rendered once per database is rendered once, answers with each call's values, and inside a transaction reads what it wrote", async () => {
    const s = server();
    const built: string[] = [];
    const byEmail = statement((db) => {
      built.push(is(db, PgTransaction) ? "transaction" : "database");
      return db.select({ id: users.id, name: users.name }).from(users).where(eq(users.email, sql.placeholder("email"))).prepare("user_by_email");
    });
    const [owner] = await s.db.select().from(users).limit(1);
    const other = await makeUser(s.db);
    expect(await byEmail(s.db).execute({ email: owner!.email })).toEqual([{ id: owner!.id, name: owner!.name }]);
    expect(await byEmail(s.db).execute({ email: other.email })).toEqual([{ id: other.id, name: other.name }]);
    expect(await byEmail(s.db).execute({ email: "nobody@example.test" })).toEqual([]);
    let seenInside: unknown;
    const ended = await s.db
      .transaction(async (tx) => {
        await tx.update(users).set({ name: "Renamed inside" }).where(eq(users.id, other.id));
        seenInside = await byEmail(tx).execute({ email: other.email });
        tx.rollback();
      })
      .catch((error: unknown) => (error instanceof TransactionRollbackError ? "rolled back" : Promise.reject(error)));
    expect(ended).toBe("rolled back");
    expect(seenInside).toEqual([{ id: other.id, name: "Renamed inside" }]);
    expect(built).toEqual(["database", "transaction"]);
    expect(await byEmail(s.db).execute({ email: other.email })).toEqual([{ id: other.id, name: other.name }]);
  });
});
