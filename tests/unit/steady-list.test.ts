import { describe, expect, it } from "vitest";
import { dismiss, emptySteadyList, prune, receive, settle, type Moment } from "../../components/approvals/steady-list";

const item = (id: string, v = 0) => ({ id, v });
const ids = (list: { id: string }[]) => list.map((i) => i.id);
const free: Moment = { held: false, pointerInside: false, selectedId: null };
const hovering = (selectedId: string | null = null): Moment => ({ held: true, pointerInside: true, selectedId });
const typing = (selectedId: string): Moment => ({ held: true, pointerInside: false, selectedId });

describe("the steady pending list", () => {
  const start = receive(emptySteadyList(), [item("a"), item("b"), item("c")], "q", free);

  it("takes the server's list as it is when nothing holds it", () => {
    expect(ids(start.shown)).toEqual(["a", "b", "c"]);
    const next = receive(start, [item("n"), item("a"), item("c")], "q", free);
    expect(ids(next.shown)).toEqual(["n", "a", "c"]);
    expect(next.gone).toEqual([]);
  });

  it("under the pointer: a card decided elsewhere stays in place, marked gone, and an arrival waits instead of being inserted above", () => {
    const next = receive(start, [item("n"), item("a", 1), item("c")], "q", hovering("c"));
    expect(ids(next.shown)).toEqual(["a", "b", "c"]);
    expect(next.shown[0]).toEqual(item("a", 1));
    expect(next.gone).toEqual(["b"]);
    expect(ids(next.waiting)).toEqual(["n"]);
  });

  it("the selected card stays when gone until the reviewer moves on; others go once the pointer leaves", () => {
    const held = receive(start, [item("a")], "q", typing("b"));
    expect(held.gone).toEqual(["b", "c"]);
    const left = settle(held, { held: false, pointerInside: false, selectedId: "b" });
    expect(ids(left.shown)).toEqual(["a", "b"]);
    expect(left.gone).toEqual(["b"]);
    const movedOn = settle(left, { held: false, pointerInside: false, selectedId: "a" });
    expect(ids(movedOn.shown)).toEqual(["a"]);
    expect(movedOn.gone).toEqual([]);
  });

  it("keeps the selected gone card at its place when arrivals are shown, even when every shown card is gone", () => {
    const allGone = receive(start, [item("x"), item("y")], "q", hovering("b"));
    expect(ids(allGone.shown)).toEqual(["a", "b", "c"]);
    expect(allGone.gone).toEqual(["a", "b", "c"]);
    expect(ids(allGone.waiting)).toEqual(["x", "y"]);
    expect(ids(settle(allGone, { held: false, pointerInside: false, selectedId: "b" }).shown)).toEqual(["x", "b", "y"]);
    const shown = settle(receive(start, [item("n"), item("a"), item("c")], "q", hovering("b")), { held: false, pointerInside: false, selectedId: "b" });
    expect(ids(shown.shown)).toEqual(["n", "b", "a", "c"]);
  });

  it("a card that comes back is live again; dismissing takes it out; another query starts afresh", () => {
    const gone = receive(start, [item("a"), item("c")], "q", hovering("b"));
    expect(receive(gone, [item("a"), item("b"), item("c")], "q", hovering("b")).gone).toEqual([]);
    const dismissed = dismiss(gone, "b");
    expect(ids(dismissed.shown)).toEqual(["a", "c"]);
    expect(dismissed.gone).toEqual([]);
    const other = receive(gone, [item("z")], "q2", hovering("b"));
    expect(ids(other.shown)).toEqual(["z"]);
    expect(other.gone).toEqual([]);
  });

  it("pruning takes away only gone cards the reviewer has left, keeps the order and what waits, and does nothing under the pointer", () => {
    const held = receive(start, [item("n"), item("c")], "q", typing("b"));
    expect(held.gone).toEqual(["a", "b"]);
    expect(prune(held, { held: true, pointerInside: true, selectedId: "c" })).toBe(held);
    const pruned = prune(held, typing("b"));
    expect(ids(pruned.shown)).toEqual(["b", "c"]);
    expect(pruned.gone).toEqual(["b"]);
    expect(ids(pruned.waiting)).toEqual(["n"]);
  });
});
