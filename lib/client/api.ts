import { AppError } from "../errors";

export const WORKSPACE_HEADER = "x-clawdeck-workspace";

export interface ApiOptions {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  body?: unknown;
  workspace?: string;
  signal?: AbortSignal;
}

/** Calls our API from the browser; a failed call throws the server's AppError rebuilt from its JSON code. */
export async function apiFetch<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
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
  if (response.status === 204) return undefined as T;
  const payload: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw AppError.fromBody(payload, response.status);
  return payload as T;
}
