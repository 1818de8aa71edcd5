/**
 * The inbox's tab, sort and filters as its address names them, and the API
 * query each list sends. The page's server prefetch and the browser build the
 * same query, so the prefetched list is the one the browser asks for.
 */
export const outcomes = ["all", "decided", "expired", "withdrawn"] as const;
export const sorts = ["expiry", "newest", "oldest"] as const;

export interface Filters {
  tab: "pending" | "history";
  agent: string;
  category: string;
  taint: string;
  sort: (typeof sorts)[number];
  outcome: (typeof outcomes)[number];
}

export const defaultFilters: Filters = { tab: "pending", agent: "", category: "", taint: "", sort: "expiry", outcome: "all" };

const pick = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T => (allowed.includes(value as T) ? (value as T) : fallback);

/** The filters an address names; unknown values fall back to the defaults. */
export function filtersFrom(get: (name: string) => string | null): Filters {
  return {
    tab: get("tab") === "history" ? "history" : "pending",
    agent: get("agent") ?? "",
    category: get("category") ?? "",
    taint: get("taint") ?? "",
    sort: pick(get("sort"), sorts, defaultFilters.sort),
    outcome: pick(get("outcome"), outcomes, defaultFilters.outcome),
  };
}

/** The API query of the pending list (also its query key). */
export function pendingSearch(filters: Filters): string {
  const params = new URLSearchParams({ status: "pending", sort: filters.sort });
  if (filters.category) params.set("category", filters.category);
  if (filters.agent) params.set("agent", filters.agent);
  if (filters.taint) params.set("taint", filters.taint);
  return params.toString();
}

/** The API query of the decided list. */
export function historySearch(filters: Filters): string {
  const params = new URLSearchParams({ status: filters.outcome, sort: "newest" });
  if (filters.category) params.set("category", filters.category);
  if (filters.agent) params.set("agent", filters.agent);
  if (filters.taint) params.set("taint", filters.taint);
  return params.toString();
}

/** The API query of every approval the viewer can see, read for the filters' choices. */
export const facetsSearch = "status=all&limit=200";
