import { EventEmitter } from "node:events";

/**
 * Live fan-out. A message says only that something new exists (ids and a
 * sequence number); subscribers read the journal for the content, so what a
 * late subscriber replays is what a live one saw.
 */
export interface EventBus {
  publish(topic: string, message: Record<string, unknown>): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(topic: string, listener: (message: Record<string, unknown>) => void): () => void;
  close(): Promise<void>;
  /**
   * Set when the bus is PostgreSQL's LISTEN/NOTIFY on the writers' own database: the channel its messages travel on,
   * as `{"t": topic, "m": message}`. A writer may then send its message from inside the statement that commits what it
   * announces (`pg_notify`), so the two are one round trip and the message goes out exactly when the rows are visible.
   */
  readonly channel?: string;
}

/** One process (PGlite): an in-memory emitter. */
export function createLocalBus(): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async publish(topic, message) {
      emitter.emit(topic, message);
    },
    subscribe(topic, listener) {
      emitter.on(topic, listener);
      return () => emitter.off(topic, listener);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

const CHANNEL = "clawdeck_events";

/**
 * Several processes on one PostgreSQL: LISTEN/NOTIFY on one channel. The
 * notification is delivered to every listening process, this one included.
 */
export async function createPostgresBus(url: string): Promise<EventBus> {
  const { default: postgres } = await import("postgres");
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const local = createLocalBus();
  const listening = await sql.listen(CHANNEL, (raw) => {
    try {
      const { t, m } = JSON.parse(raw) as { t: string; m: Record<string, unknown> };
      void local.publish(t, m);
    } catch {
      // A malformed notification carries nothing we could act on.
    }
  });
  return {
    channel: CHANNEL,
    async publish(topic, message) {
      await sql`select pg_notify(${CHANNEL}, ${JSON.stringify({ t: topic, m: message })})`;
    },
    subscribe: local.subscribe,
    async close() {
      await listening.unlisten();
      await sql.end({ timeout: 5 });
      await local.close();
    },
  };
}
