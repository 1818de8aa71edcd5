import { describe, expect, it } from "vitest";
import { tailJournal } from "../../lib/db/journal-tail";

type Row = { seq: number; text: string };

/** A journal in memory with a reader that counts its reads, and hooks to push and wake like a writer would. */
function journal() {
  const rows: Row[] = [];
  let deliver: ((items: Row[]) => void) | null = null;
  let wake: (() => void) | null = null;
  const state = { reads: 0 };
  /** A held read waits for `release`, as a read does on a busy database; it sees the rows as of its call or its end. */
  let held: { snapshot: "call" | "end"; release: Promise<void> } | null = null;
  return {
    rows,
    state,
    hold(snapshot: "call" | "end") {
      let release!: () => void;
      held = { snapshot, release: new Promise<void>((r) => (release = r)) };
      return release;
    },
    /** Commits rows, then hands them over from memory, only says there is more, or says nothing. */
    commit(texts: string[], how: "push" | "wake" | "silent" = "push") {
      const added = texts.map((text, i) => ({ seq: rows.length + 1 + i, text }));
      for (const row of added) rows.push(row);
      if (how === "push") deliver?.(added.map((r) => ({ ...r })));
      if (how === "wake") wake?.();
      return added;
    },
    push: (items: Row[]) => deliver?.(items),
    options: (afterSeq = 0, memoryLimit?: number) => ({
      subscribe: (w: () => void) => ((wake = w), () => (wake = null)),
      push: (d: (items: Row[]) => void) => ((deliver = d), () => (deliver = null)),
      read: async (after: number) => {
        state.reads += 1;
        const read = () => rows.filter((r) => r.seq > after).map((r) => ({ ...r }));
        const hold = held;
        held = null;
        if (!hold) return read();
        const atCall = read();
        await hold.release;
        return hold.snapshot === "call" ? atCall : read();
      },
      batchSize: 1000,
      afterSeq,
      memoryLimit,
      isLast: (r: Row) => r.text === "end",
      heartbeatMs: 60_000,
    }),
  };
}

async function next(it: AsyncGenerator<{ kind: string; item?: Row }>) {
  const step = await it.next();
  if (step.done || step.value.kind !== "item") throw new Error("expected an item");
  return step.value.item!;
}

describe("tailJournal with items handed over from memory", () => {
  it("yields pushed items that continue the cursor without reading the journal again", async () => {
    const j = journal();
    j.commit(["a"]);
    const it = tailJournal(j.options());
    expect(await next(it)).toEqual({ seq: 1, text: "a" });
    const first = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["b", "c"]);
    expect(await first).toEqual({ seq: 2, text: "b" });
    expect(await next(it)).toEqual({ seq: 3, text: "c" });
    const last = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["end"]);
    expect(await last).toEqual({ seq: 4, text: "end" });
    expect((await it.next()).done).toBe(true);
    expect(j.state.reads).toBe(1);
  });

  it("reads the journal when a pushed batch does not continue the cursor (a row written elsewhere)", async () => {
    const j = journal();
    const it = tailJournal(j.options());
    const first = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["elsewhere"], "silent");
    j.commit(["here"]);
    expect(await first).toEqual({ seq: 1, text: "elsewhere" });
    expect(await next(it)).toEqual({ seq: 2, text: "here" });
    expect(j.state.reads).toBe(2);
  });

  it("skips pushed items it already has, and falls back to a read when the backlog passes the limit", async () => {
    const j = journal();
    j.commit(["a", "b"]);
    const it = tailJournal(j.options(0, 2));
    expect(await next(it)).toEqual({ seq: 1, text: "a" });
    expect(await next(it)).toEqual({ seq: 2, text: "b" });
    const waiting = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.push([{ seq: 2, text: "b" }]);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["c", "d", "e"]);
    expect(await waiting).toEqual({ seq: 3, text: "c" });
    expect(await next(it)).toEqual({ seq: 4, text: "d" });
    expect(await next(it)).toEqual({ seq: 5, text: "e" });
    expect(j.state.reads).toBe(2);
  });

  it("keeps what is pushed while a read is under way: a row committed after the read's snapshot comes from memory", async () => {
    const j = journal();
    j.commit(["a", "b"], "silent");
    const release = j.hold("call");
    const it = tailJournal(j.options());
    const first = next(it);
    await new Promise((r) => setTimeout(r, 0));
    expect(j.state.reads).toBe(1);
    j.commit(["c"]);
    release();
    expect(await first).toEqual({ seq: 1, text: "a" });
    expect(await next(it)).toEqual({ seq: 2, text: "b" });
    expect(await next(it)).toEqual({ seq: 3, text: "c" });
    expect(j.state.reads).toBe(1);
  });

  it("skips a row pushed while a read is under way when the read returned it too", async () => {
    const j = journal();
    j.commit(["a"], "silent");
    const release = j.hold("end");
    const it = tailJournal(j.options());
    const first = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["b"]);
    release();
    expect(await first).toEqual({ seq: 1, text: "a" });
    expect(await next(it)).toEqual({ seq: 2, text: "b" });
    const last = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["end"]);
    expect(await last).toEqual({ seq: 3, text: "end" });
    expect((await it.next()).done).toBe(true);
    expect(j.state.reads).toBe(1);
  });

  it("reads again when what was pushed during a read leaves a gap after it", async () => {
    const j = journal();
    j.commit(["a"], "silent");
    const release = j.hold("call");
    const it = tailJournal(j.options());
    const first = next(it);
    await new Promise((r) => setTimeout(r, 0));
    j.commit(["elsewhere"], "silent");
    j.commit(["here"]);
    release();
    expect(await first).toEqual({ seq: 1, text: "a" });
    expect(await next(it)).toEqual({ seq: 2, text: "elsewhere" });
    expect(await next(it)).toEqual({ seq: 3, text: "here" });
    expect(j.state.reads).toBe(2);
  });

  it("fresh: follows a journal that has nothing yet from memory alone, and reads it when the first item shows that something came before", async () => {
    const clean = journal();
    const it = tailJournal({ ...clean.options(), fresh: true });
    const first = next(it);
    await new Promise((r) => setTimeout(r, 0));
    clean.commit(["a"]);
    expect(await first).toEqual({ seq: 1, text: "a" });
    const last = next(it);
    await new Promise((r) => setTimeout(r, 0));
    clean.commit(["end"]);
    expect(await last).toEqual({ seq: 2, text: "end" });
    expect(clean.state.reads).toBe(0);

    const late = journal();
    late.commit(["before"], "silent");
    const it2 = tailJournal({ ...late.options(), fresh: true });
    const head = next(it2);
    await new Promise((r) => setTimeout(r, 0));
    late.commit(["after"]);
    expect(await head).toEqual({ seq: 1, text: "before" });
    expect(await next(it2)).toEqual({ seq: 2, text: "after" });
    expect(late.state.reads).toBe(1);
  });
});
