import { describe, expect, it } from "vitest";
import { AppError } from "../../lib/errors";
import { handOverWhen } from "../../lib/http/sse";

/** A stream that records when it was started and closed, and yields 1, 2, 3 once started. */
function recorded() {
  const log: string[] = [];
  async function* items() {
    log.push("started");
    try {
      for (const n of [1, 2, 3]) yield n;
    } finally {
      log.push("closed");
    }
  }
  return { log, items: items() };
}

describe("handOverWhen", () => {
  it("starts the stream before the check is decided, then hands over every item in order", async () => {
    const { log, items } = recorded();
    let pass!: () => void;
    const allowed = new Promise<void>((resolve) => (pass = resolve));
    const handed = handOverWhen(items, allowed, new AbortController());
    await Promise.resolve();
    expect(log).toEqual(["started"]);
    pass();
    const got: number[] = [];
    for await (const n of await handed) got.push(n);
    expect(got).toEqual([1, 2, 3]);
    expect(log).toEqual(["started", "closed"]);
  });

  it("a refusal is thrown, stops the stream and closes it, and nothing it read is handed to anyone", async () => {
    const { log, items } = recorded();
    const stop = new AbortController();
    const refusal = new AppError("not_found:run");
    await expect(handOverWhen(items, Promise.reject(refusal), stop)).rejects.toBe(refusal);
    expect(stop.signal.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(["started", "closed"]);
  });

  it("a first read that fails while the check is out is not left unhandled: the stream throws it once handed over", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const broken = new Error("the database went away");
      async function* failing(): AsyncGenerator<number> {
        throw broken;
      }
      let pass!: () => void;
      const allowed = new Promise<void>((resolve) => (pass = resolve));
      const handed = handOverWhen(failing(), allowed, new AbortController());
      await new Promise((r) => setTimeout(r, 10));
      pass();
      const stream = await handed;
      await expect(stream.next()).rejects.toBe(broken);
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
