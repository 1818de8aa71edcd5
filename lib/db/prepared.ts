import type { Sql, TransactionSql } from "postgres";

type Client = Sql | TransactionSql;
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
 * (postgres.js renews each connection after 30 to 60 minutes), so the
 * statement texts must be a bounded set: every query here is written with
 * parameters, never with values spliced into its text.
 */
export function preparedByDefault<T extends Client>(sql: T): T {
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key === "unsafe") {
        return (query: string, args?: unknown, options?: Record<string, unknown>) => {
          const [values, opts] = Array.isArray(args) ? [args, options] : [[], args as Record<string, unknown> | undefined];
          return target.unsafe(query, values as never[], { ...opts, prepare: true });
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
