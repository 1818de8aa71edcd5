/**
 * Whether a state-changing request was sent by the app's own pages. A
 * session cookie travels with any site's form or fetch, so it proves
 * nothing about intent; the browser-set `Origin` and `Sec-Fetch-Site`
 * headers do, and no page script can forge them.
 */

export interface OriginPolicy {
  /**
   * The origins (`scheme://host[:port]`) the app is served from. When empty,
   * the request's own `Host` is the reference (right for a direct deployment;
   * behind a proxy that rewrites Host, configure the origin).
   */
  origins: readonly string[];
  /** Use `X-Forwarded-Host` instead of `Host` when no origin is configured: only behind a proxy that sets it. */
  trustProxy: boolean;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** The origin of each comma-separated URL (`https://deck.example.com/api/auth` → `https://deck.example.com`). */
export function parseOrigins(list: string | undefined): string[] {
  return (list ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => new URL(entry).origin);
}

/** The policy from the environment: `CLAWDECK_ORIGIN`, else next-auth's `AUTH_URL`, else the request's Host. */
export function originPolicyFromEnv(env: { CLAWDECK_ORIGIN?: string[]; AUTH_URL?: string; CLAWDECK_TRUSTED_PROXIES?: number }): OriginPolicy {
  const origins = env.CLAWDECK_ORIGIN?.length ? env.CLAWDECK_ORIGIN : parseOrigins(env.AUTH_URL);
  return { origins, trustProxy: (env.CLAWDECK_TRUSTED_PROXIES ?? 0) > 0 };
}

/**
 * Null when the request may change state; otherwise why it may not. Reads
 * (GET, HEAD) always pass. A write must carry an `Origin` that is the app's
 * own, or, when a browser leaves `Origin` out, `Sec-Fetch-Site: same-origin`.
 * A request with neither is refused: a script or tool calling the API sends
 * the app's origin as `Origin`.
 */
export function refusedOrigin(req: Request, policy: OriginPolicy): string | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const site = req.headers.get("sec-fetch-site")?.toLowerCase();
  if (site === "cross-site" || site === "same-site") return `a ${site} request`;
  const origin = req.headers.get("origin");
  if (origin === null) return site === "same-origin" ? null : "no Origin header";
  let sent: URL;
  try {
    sent = new URL(origin);
  } catch {
    return "an unreadable Origin header";
  }
  if (sent.origin === "null") return "an opaque Origin";
  if (policy.origins.length > 0) return policy.origins.includes(sent.origin) ? null : `the origin ${sent.origin}`;
  const host = (policy.trustProxy ? firstValue(req.headers.get("x-forwarded-host")) : null) ?? req.headers.get("host");
  if (!host) return "no Host header to compare the origin with";
  return sent.host === host.toLowerCase() ? null : `the origin ${sent.origin}`;
}

function firstValue(header: string | null): string | null {
  const first = header?.split(",")[0]?.trim();
  return first ? first : null;
}
