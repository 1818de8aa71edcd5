/** Bodies under this many bytes are sent as they are (the threshold of Next.js's own compression). */
export const COMPRESS_FROM_BYTES = 1024;

const encoder = new TextEncoder();

/**
 * A JSON response. Next.js gzips every response whose length it cannot see,
 * and a route handler cannot show it one: it drops a `Content-Length` the
 * handler sets. Gzipping a body under 1 KB (most API answers: an id, an
 * error) costs the server more than it saves on the wire, so such a body
 * says `no-transform`, which Next.js's compression (and any proxy) leaves
 * as it is. Larger bodies are still compressed for clients that accept it.
 */
export function jsonResponse(data: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  const body = encoder.encode(JSON.stringify(data));
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json");
  if (body.byteLength < COMPRESS_FROM_BYTES) {
    const cacheControl = headers.get("Cache-Control");
    if (!/(^|,)\s*no-transform\s*(,|$)/i.test(cacheControl ?? "")) headers.set("Cache-Control", cacheControl ? `${cacheControl}, no-transform` : "no-transform");
  }
  return new Response(body, { status: init.status ?? 200, headers });
}
