import { AsyncLocalStorage } from "node:async_hooks";

/** The API key a request was made with, and whose key it is. */
export interface ActingKey {
  id: string;
  name: string;
  makerId: string;
}

const store = new AsyncLocalStorage<ActingKey>();

/** Runs `work` as done with `key`: everything it records in the audit log names the key beside its maker. */
export function actWithKey<T>(key: ActingKey, work: () => Promise<T>): Promise<T> {
  return store.run(key, work);
}

/** The key the current request was made with, if it was made with one. */
export function actingKey(): ActingKey | undefined {
  return store.getStore();
}
