import { dehydrate, QueryClient, type DehydratedState, type QueryKey } from "@tanstack/react-query";
import { safeParse } from "zod/mini";
import type { $ZodType, input } from "zod/v4/core";
import { AppError } from "../errors";
import { logError } from "../log";

/**
 * Server prefetch for a page: it reads with the domain function its API route
 * calls (after the same access checks), and the browser's `useQuery` with the
 * same key starts with that data instead of "Loading…".
 */
export interface Prefetch {
  queryKey: QueryKey;
  read: () => Promise<unknown>;
}

/** One query to prefetch; `read` is type-checked against the route's response schema, like the route's handler. */
export function prefetch<S extends $ZodType>(queryKey: QueryKey, schema: S, read: () => Promise<input<S>>): Prefetch {
  return { queryKey, read: async () => asTheBrowserReadsIt(schema, await read(), queryKey) };
}

/**
 * What the browser's cache would hold had it fetched the reply: the JSON of
 * it, parsed with the route's schema (dates become their ISO strings).
 */
function asTheBrowserReadsIt(schema: $ZodType, data: unknown, queryKey: QueryKey): unknown {
  const result = safeParse(schema, JSON.parse(JSON.stringify(data)));
  if (result.success) return result.data;
  const error = new AppError("internal:contract", `The prefetched ${JSON.stringify(queryKey[0])} does not match its schema.`, { details: result.error.issues.slice(0, 5) });
  logError("Server prefetch", error);
  throw error;
}

/**
 * Runs the prefetches on a fresh client, for `<HydrationBoundary state={…}>`.
 * One that fails is left out (never retried here): the browser then asks the
 * API itself and shows that answer, error included.
 */
export async function prefetchState(prefetches: (Prefetch | false)[]): Promise<DehydratedState> {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  await Promise.all(prefetches.filter((p): p is Prefetch => !!p).map((p) => client.prefetchQuery({ queryKey: p.queryKey, queryFn: p.read })));
  return dehydrate(client);
}
