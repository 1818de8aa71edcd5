import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * What a person changed in one tab, told to the app's other tabs in the same
 * browser: the queries whose data it changed (a chat's history when a message
 * was sent in it, the chat list), so a chat open in two tabs shows a message
 * sent from either, and follows its reply live, without waiting for the tab to
 * be focused again. Only the person's own actions are told: what every tab
 * learns by itself (a reply's end, from the run's stream) is not, or each tab
 * would refetch once per tab. Only query keys travel (same origin only); each
 * tab reads the data again itself, with its own session.
 */
const CHANNEL = "clawdeck:changed";

let channel: BroadcastChannel | null | undefined;

function tabsChannel(): BroadcastChannel | null {
  // Node has BroadcastChannel too: on the server (a render) there are no tabs to tell.
  if (channel === undefined) channel = typeof window === "undefined" || typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel(CHANNEL);
  return channel;
}

/** Marks `keys` stale in this tab (refetching those on screen) and in the app's other tabs. */
export function invalidateInEveryTab(queryClient: QueryClient, keys: QueryKey[]): void {
  for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
  tellOtherTabs(keys);
}

/** Marks `keys` stale in the app's other tabs only (this tab dealt with them itself). */
export function tellOtherTabs(keys: QueryKey[]): void {
  tabsChannel()?.postMessage({ keys });
}

/**
 * Applies the other tabs' changes to this tab's queries, until the returned
 * function is called. A message that is not a list of keys is ignored.
 */
export function followOtherTabs(queryClient: QueryClient): () => void {
  const tabs = tabsChannel();
  if (!tabs) return () => undefined;
  const onMessage = (event: MessageEvent) => {
    const keys: unknown = (event.data as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) return;
    for (const queryKey of keys) if (Array.isArray(queryKey)) void queryClient.invalidateQueries({ queryKey });
  };
  tabs.addEventListener("message", onMessage);
  return () => tabs.removeEventListener("message", onMessage);
}
