import type { Db } from "./client";

/**
 * A statement that is rendered once per database, for the statements every
 * chat sends (a run's first read, a stream's journal read, a model call's
 * price and counters). Drizzle renders a query builder's SQL anew on each
 * call, walking every selected column: on this machine 60 to 80 µs for a small
 * select and 250 to 480 µs for one that reads whole rows, which at 60 chats
 * at once is a good part of what the server's thread does before their first
 * text. A prepared query keeps its text and its result mapping, and binds the
 * `sql.placeholder` values of each call.
 *
 * `build` gets the database or transaction the statement runs on: a
 * transaction gets its own, kept as long as it lives (one prepared on the
 * database would run outside it).
 *
 * A placeholder's value is sent as it is given, without the column's own
 * conversion: give ids, numbers and text, not dates or JSON.
 */
export function statement<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const byDatabase = new WeakMap<Db, Q>();
  return (db) => {
    let prepared = byDatabase.get(db);
    if (prepared === undefined) {
      prepared = build(db);
      byDatabase.set(db, prepared);
    }
    return prepared;
  };
}
