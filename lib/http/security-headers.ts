/**
 * The security headers of every response. Pages get a Content-Security-Policy
 * whose scripts must carry this request's nonce (Next.js reads the nonce from
 * the request's CSP header and puts it on its own scripts); API responses are
 * data, so their policy allows nothing at all. Neither may be framed.
 */

/** Headers sent on every response, page or API. */
export const commonSecurityHeaders: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  // For browsers that predate `frame-ancestors`.
  "X-Frame-Options": "DENY",
};

/** A fresh, unguessable nonce for one response (128 random bits, base64). */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The policy of an HTML page. `'strict-dynamic'` lets the nonced Next.js
 * scripts load their chunks; styles allow inline because React `style`
 * attributes (charts, progress bars) cannot carry a nonce, and a nonce in
 * style-src would switch `'unsafe-inline'` off. Development adds
 * `'unsafe-eval'`, which React's dev tooling needs, and nothing else.
 * `formActions`: the origins of the configured identity providers.
 */
export function pageContentSecurityPolicy(nonce: string, options: { development?: boolean; formActions?: readonly string[] } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // Same-origin fetches and EventSource streams only (the dev server's websocket is same-origin too).
    "connect-src 'self'",
    // The service worker that shows push notifications is this origin's own file.
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    // A "Sign in with …" form is answered with a redirect to the identity provider, which form-action governs too.
    ["form-action 'self'", ...(options.formActions ?? [])].join(" "),
    "frame-src 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The policy of an API response: JSON and event streams load nothing and render nowhere. */
export const apiContentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'";

/** Every header of an API response, as `next.config.ts` sets them on `/api` and `/api/…`. */
export function apiSecurityHeaders(): { key: string; value: string }[] {
  return [{ key: "Content-Security-Policy", value: apiContentSecurityPolicy }, ...Object.entries(commonSecurityHeaders).map(([key, value]) => ({ key, value }))];
}
