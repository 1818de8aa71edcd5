import type { Page, Request } from "@playwright/test";

/**
 * Waits for a page's requests to settle, leaving out its event streams. Pages
 * follow their live data (the approvals count, runs, the feed) over
 * long-lived `fetch` streams, which Playwright's `networkidle` counts as
 * pending forever.
 */
export function watchNetwork(page: Page) {
  const pending = new Set<Request>();
  let changedAt = Date.now();
  const isStream = (request: Request) => (request.headers()["accept"] ?? "").includes("text/event-stream");
  page.on("request", (request) => {
    if (isStream(request)) return;
    pending.add(request);
    changedAt = Date.now();
  });
  const finished = (request: Request) => {
    if (pending.delete(request)) changedAt = Date.now();
  };
  page.on("requestfinished", finished);
  page.on("requestfailed", finished);

  return {
    /** Resolves once no request (other than event streams) has been open for `quietMs`. */
    async settled({ quietMs = 500, timeoutMs = 30_000 } = {}): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (pending.size === 0 && Date.now() - changedAt >= quietMs) return;
        if (Date.now() > deadline) throw new Error(`Requests still open after ${timeoutMs} ms: ${[...pending].map((r) => r.url()).join(", ")}`);
        await page.waitForTimeout(100);
      }
    },
  };
}
