import { inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "../../../lib/db/client";
import { PREPARE_UP_TO } from "../../../lib/db/prepared";
import { users } from "../../../lib/db/schema";
import { useTestServer } from "../../support/server";

// Prepared statements are the postgres.js driver's: these tests run in the PostgreSQL leg only.
describe("prepared statements on PostgreSQL", () => {
  const server = useTestServer();

  it("prepares each statement once per connection, then sends it without parsing it again", async () => {
    const s = server();
    const marker = `prepared_${Date.now()}`;
    // One transaction holds one connection: what it prepared is listed in that connection's pg_prepared_statements.
    const listed = await s.db.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await tx.execute(sql`select ${i}::int as n, ${marker}::text as marker`);
      await tx.transaction(async (sp) => sp.execute(sql`select ${marker}::text as marker, ${1}::int as inner_n`));
      return rowsOf<{ statement: string; parameter_types: string[] }>(
        await tx.execute(sql`select statement, parameter_types::text[] as parameter_types from pg_prepared_statements where statement like ${"%marker%"}`),
      );
    });
    const outer = listed.filter((p) => p.statement.includes("as n,"));
    const inner = listed.filter((p) => p.statement.includes("inner_n"));
    // The same text run three times is one prepared statement; the savepoint's own statement is prepared too.
    expect(outer).toHaveLength(1);
    expect(inner).toHaveLength(1);
  });

  it("sends a statement with a long list of parameters unprepared, so list lengths do not pile up on a connection", async () => {
    const s = server();
    const ids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
    const listed = await s.db.transaction(async (tx) => {
      await tx.select({ id: users.id }).from(users).where(inArray(users.id, ids(3)));
      await tx.select({ id: users.id }).from(users).where(inArray(users.id, ids(PREPARE_UP_TO + 1)));
      await tx.select({ id: users.id }).from(users).where(inArray(users.id, ids(PREPARE_UP_TO + 2)));
      return rowsOf<{ statement: string }>(await tx.execute(sql`select statement from pg_prepared_statements where statement like ${'%from "users" where "users"."id" in%'}`));
    });
    expect(listed.map((p) => p.statement.match(/\$\d+/g)!.length)).toEqual([3]);
  });
});
