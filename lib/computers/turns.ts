/** Work done one at a time per key (an agent), in the order it was asked for, on this server. */
export interface Turns {
  /** Runs `work` after every earlier piece of work of the key has ended (whether it succeeded or not). */
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export function createTurns(): Turns {
  const last = new Map<string, Promise<unknown>>();
  return {
    run(key, work) {
      const before = last.get(key) ?? Promise.resolve();
      const mine = before.then(work, work);
      const settled = mine.catch(() => undefined);
      last.set(key, settled);
      void settled.then(() => {
        if (last.get(key) === settled) last.delete(key);
      });
      return mine;
    },
  };
}
