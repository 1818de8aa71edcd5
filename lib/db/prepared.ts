import type { Sql, TransactionSql } from "postgres";

type Client = Sql | TransactionSql;

/** Statements with at most this many parameters are prepared. */
export const PREPARE_UP_TO = 64;
type Callback = (sql: TransactionSql) => unknown;

/**
 * A postgres.js client whose raw queries are prepared. postgres.js sends an
 * unprepared statement that has parameters in two round trips (it asks the
 * server for the parameter types, then binds and runs it), and Drizzle asks
 * for unprepared statements unless a query is given a name: so every query
 * with a parameter cost two writes and two waits. Prepared, a statement is
 * described once per connection; after that it goes in one write (bind and
 * run) and the server does not parse or plan it again. Transactions and
 * savepoints opened through the client get the same treatment.
 *
 * Statements a connection has prepared stay with it until it closes
 * (postgres.js renews each connection after 30 to 60 minutes), so only a
 * bounded set of texts is prepared: values are always parameters, never
 * spliced into a text, and a statement with more than `PREPARE_UP_TO`
 * parameters (a list whose length varies: `in (...)`, many rows at once) is
 * sent unprepared, as before, so each new length does not leave one more
 * statement on every connection.
 *
 * Behind a connection pooler in transaction mode, which cannot keep
 * prepared statements, add `?prepare=false` to `DATABASE_URL`: postgres.js
 * then prepares nothing, whatever is asked here.
 */
export function preparedByDefault<T extends Client>(sql: T): T {
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key === "unsafe") {
        return (query: string, args?: unknown, options?: Record<string, unknown>) => {
          const [values, opts] = Array.isArray(args) ? [args, options] : [[], args as Record<string, unknown> | undefined];
          return target.unsafe(query, values as never[], { ...opts, prepare: values.length <= PREPARE_UP_TO });
        };
      }
      if (key === "begin" || key === "savepoint") {
        const open = Reflect.get(target, key, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          const callback = args.pop() as Callback;
          return open.apply(target, [...args, (tx: TransactionSql) => callback(preparedByDefault(tx))]);
        };
      }
      return Reflect.get(target, key, receiver);
    },
  });
}
