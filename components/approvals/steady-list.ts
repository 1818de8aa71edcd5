/**
 * The pending list as the reviewer sees it, kept steady while they work.
 *
 * The server's list changes under the reviewer: other reviewers decide
 * cards, requests expire or are withdrawn, new ones arrive. Applying each
 * change at once would slide another card's button under the pointer, or
 * take away a card whose reason the reviewer is typing. So:
 *
 * - a card that leaves the server's list stays where it is, marked gone,
 *   until the reviewer moves on from it (or dismisses it) and the pointer is
 *   not over the list;
 * - while the list is held (pointer over it, or focus in it), new cards wait
 *   to be shown rather than being inserted; otherwise the server's order is
 *   taken, with gone cards kept at their place.
 */
export interface SteadyList<T extends { id: string }> {
  /** What the list shows, in order (gone cards included). */
  shown: T[];
  /** Shown cards that are no longer pending on the server. */
  gone: string[];
  /** Pending on the server, not shown yet. */
  waiting: T[];
  /** The server's latest list, in its order. */
  latest: T[];
  /** The query (sort, filters) the list belongs to: another query starts afresh. */
  query: string | null;
}

export function emptySteadyList<T extends { id: string }>(): SteadyList<T> {
  return { shown: [], gone: [], waiting: [], latest: [], query: null };
}

export interface Moment {
  /** Pointer over the list or focus inside it: nothing is inserted or reordered. */
  held: boolean;
  /** Pointer over the list: nothing is taken away either. */
  pointerInside: boolean;
  /** The card the reviewer is on: kept even when gone. */
  selectedId: string | null;
}

/** Takes in the server's latest list. */
export function receive<T extends { id: string }>(state: SteadyList<T>, incoming: T[], query: string, moment: Moment): SteadyList<T> {
  if (state.query !== query) return { shown: incoming, gone: [], waiting: [], latest: incoming, query };
  const live = new Map(incoming.map((item) => [item.id, item]));
  const gone = new Set(state.gone);
  for (const item of state.shown) if (!live.has(item.id)) gone.add(item.id);
  for (const id of gone) if (live.has(id)) gone.delete(id);
  const next: SteadyList<T> = { ...state, latest: incoming, gone: [...gone] };
  if (moment.held && state.shown.length > 0) {
    const shownIds = new Set(state.shown.map((item) => item.id));
    next.shown = state.shown.map((item) => live.get(item.id) ?? item);
    next.waiting = incoming.filter((item) => !shownIds.has(item.id));
    return next;
  }
  return settle(next, moment);
}

/** Applies what waited: the server's order, gone cards at their place, gone cards the reviewer has left taken away. */
export function settle<T extends { id: string }>(state: SteadyList<T>, moment: Moment): SteadyList<T> {
  const keep = (id: string) => moment.pointerInside || id === moment.selectedId;
  const gone = state.gone.filter(keep);
  const shown = [...state.latest];
  state.shown.forEach((item, index) => {
    if (gone.includes(item.id)) shown.splice(Math.min(index, shown.length), 0, item);
  });
  return { ...state, shown, gone, waiting: [] };
}

/** Takes one card out of the list: dismissed, or decided here. */
export function dismiss<T extends { id: string }>(state: SteadyList<T>, id: string): SteadyList<T> {
  return {
    ...state,
    shown: state.shown.filter((item) => item.id !== id),
    gone: state.gone.filter((g) => g !== id),
    latest: state.latest.filter((item) => item.id !== id),
    waiting: state.waiting.filter((item) => item.id !== id),
  };
}

/** Takes away gone cards the reviewer has left, in place, unless the pointer is over the list. */
export function prune<T extends { id: string }>(state: SteadyList<T>, moment: Moment): SteadyList<T> {
  if (moment.pointerInside) return state;
  const gone = state.gone.filter((id) => id === moment.selectedId);
  if (gone.length === state.gone.length) return state;
  return { ...state, shown: state.shown.filter((item) => !state.gone.includes(item.id) || gone.includes(item.id)), gone };
}
