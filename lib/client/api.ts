import { AppError } from "../errors";

export const WORKSPACE_HEADER = "x-clawdeck-workspace";

export interface ApiOptions {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  body?: unknown;
  workspace?: string;
  signal?: AbortSignal;
}

/**
 * What apiFetch needs of a schema: zod's own `safeParse` (classic or mini).
 * Nothing here imports zod, so a page whose calls send no schema (the
 * workspace layout) carries none of it.
 */
export interface ReplySchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** Options with the schema the reply must match (the one the route's `response` names). */
export type CheckedApiOptions<T> = ApiOptions & { schema: ReplySchema<T> };

/**
 * Calls our API from the browser; a failed call throws the server's AppError
 * rebuilt from its JSON code. With a `schema`, the reply is parsed with it and
 * a reply of another shape throws `internal:contract` (server and page out of
 * step) rather than reaching the page as something it is not. Without one the
 * reply is not read for its shape: for calls whose answer is ignored.
 */
export async function apiFetch<T>(path: string, options: CheckedApiOptions<T>): Promise<T>;
export async function apiFetch(path: string, options?: ApiOptions & { schema?: undefined }): Promise<unknown>;
export async function apiFetch(path: string, options: ApiOptions & { schema?: ReplySchema<unknown> } = {}): Promise<unknown> {
  const response = await send(path, options, "application/json");
  const payload: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
  return options.schema ? checkedReply(options.schema, payload, path) : payload;
}

/**
 * Calls our API asking for an event stream as the answer (a chat message,
 * whose answer carries the reply's events): the successful response unread,
 * for the caller to hand over (`handOverStream`) or, when the server answered
 * otherwise, to read. A refusal throws the server's AppError, as `apiFetch` does.
 */
export async function apiStream(path: string, options: ApiOptions = {}): Promise<Response> {
  return send(path, options, "text/event-stream");
}

/** One request: a network failure or a refusal (its JSON error) is thrown as an AppError; a success is returned unread. */
async function send(path: string, options: ApiOptions, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (options.workspace) headers[WORKSPACE_HEADER] = options.workspace;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? "GET",
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: "same-origin",
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new AppError("unavailable:network", "Cannot reach the server. Check your connection.");
  }
  if (!response.ok) throw AppError.fromBody(await response.json().catch(() => undefined), response.status);
  return response;
}

function checkedReply(schema: ReplySchema<unknown>, payload: unknown, path: string): unknown {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
  throw new AppError("internal:contract", `The server's reply to ${path.split("?")[0]} does not have the expected shape${at}: ${issue?.message ?? "unexpected value"}.`, {
    details: result.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
  });
}
