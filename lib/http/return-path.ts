/** A same-site path to return to after signing in (`/invite/…`, `/w/…`); anything else becomes "/". */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 500) return "/";
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return "/";
  try {
    const url = new URL(value, "http://clawdeck.invalid");
    return url.origin === "http://clawdeck.invalid" ? `${url.pathname}${url.search}` : "/";
  } catch {
    return "/";
  }
}
