import { chromium, type BrowserContext, type Locator, type Page, type Request } from "playwright-core";
import type { Db } from "../db/client";
import { cleanText } from "../text";
import { openEgressProxy, type EgressProxy } from "./egress";
import type { ComputerEngine, SandboxOwner } from "./engine";
import { currentFiles, writeFiles, type FileLimits } from "./files";
import { createTurns } from "./turns";

/**
 * Agents' browsers: a real Chromium per agent, started in a sandbox of its
 * own by the engine (no files, the network only through the egress proxy),
 * driven with playwright-core over a pipe. A browser stays open between calls
 * (a click needs the page the last call left) and closes after a while
 * unused, when the agent is paused or deleted, and when the server stops.
 *
 * Every call returns what a person would read (title, address, the page's
 * text and links) and keeps a screenshot in the agent's files, under
 * `.browser/`, tainted like everything read from the web.
 */

export const BROWSER_FOLDER = ".browser";
/** Screenshots kept in the agent's files; older ones are deleted (their versions stay in the history). */
const SCREENSHOTS_KEPT = 20;
/** Text of a page a call hands the model; the rest is counted. */
export const BROWSER_TEXT_MAX_CHARS = 20_000;
const LINKS_MAX = 50;
const NAVIGATION_MS = 20_000;
const ACTION_MS = 5_000;
/** A browser not used for this long is closed. */
const IDLE_MS = 5 * 60_000;

export type BrowserAction =
  | { action: "open"; url: string }
  | { action: "click"; target: string }
  | { action: "type"; target: string; text: string }
  | { action: "press"; target?: string; key: string }
  | { action: "scroll"; direction: "up" | "down" };

export interface BrowserSnapshot {
  url: string;
  title: string;
  /** The page's readable text, cut at 20,000 characters. */
  text: string;
  truncated: boolean;
  links: { text: string; url: string }[];
  /** Where the screenshot of this call is kept in the agent's files. */
  screenshotPath: string;
  screenshotVersion: number;
  /** The hosts the page's requests reached in this call. */
  hosts: string[];
  /** Requests the egress proxy refused in this call, as sentences. */
  refused: string[];
  durationMs: number;
}

/** Something the model asked of the page that cannot be done: said to it in a sentence. */
export class BrowserActionError extends Error {}

interface OpenBrowser {
  context: BrowserContext;
  page: Page;
  proxy: EgressProxy;
  idle: NodeJS.Timeout;
  seenHosts: number;
  seenRefusals: number;
  closed: boolean;
}

export interface Browsers {
  /** Does one thing in the agent's browser (starting it if needed) and keeps the screenshot. */
  act(
    db: Db,
    target: { workspaceId: string; agentId: string; runId: string; stepId: string; taint: readonly string[]; privateTo: string | null },
    action: BrowserAction,
    options: { allow: readonly string[]; signal: AbortSignal },
  ): Promise<BrowserSnapshot>;
  /** Whether the agent has a browser open on this server. */
  isOpen(agentId: string): boolean;
  /** Closes the agent's browser, if it has one open here. */
  close(agentId: string): Promise<void>;
  closeAll(): Promise<void>;
}

export function createBrowsers(engine: ComputerEngine, fileLimits: FileLimits): Browsers {
  const open = new Map<string, Promise<OpenBrowser>>();
  // Each agent's browser does one thing at a time.
  const turns = createTurns();

  async function start(owner: SandboxOwner, allow: readonly string[]): Promise<OpenBrowser> {
    const proxy = await openEgressProxy({ allow });
    try {
      const executablePath = await engine.browserLauncher(owner, { socketPath: proxy.socketPath });
      const context = await chromium.launchPersistentContext("/tmp/clawdeck-browser-profile", {
        executablePath,
        // Everything goes to the sandbox's own proxy port, loopback included (nothing else is there anyway).
        proxy: { server: "http://127.0.0.1:3128", bypass: "<-loopback>" },
        args: ["--disable-dev-shm-usage", "--disable-component-update", "--js-flags=--max-old-space-size=512", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"],
        viewport: { width: 1280, height: 800 },
        acceptDownloads: false,
        timeout: 30_000,
      });
      const page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(ACTION_MS);
      page.setDefaultNavigationTimeout(NAVIGATION_MS);
      const entry: OpenBrowser = { context, page, proxy, idle: setTimeout(() => void close(owner.agentId), IDLE_MS), seenHosts: 0, seenRefusals: 0, closed: false };
      // Closed by us or gone by itself (a crash, its sandbox killed): the next call starts a new one.
      context.once("close", () => {
        entry.closed = true;
        clearTimeout(entry.idle);
        void proxy.close();
      });
      return entry;
    } catch (error) {
      await proxy.close();
      // Said to the model and shown on the step: Chromium missing, or not starting here.
      const said = String((error as Error).message ?? error).split("\n")[0] ?? "";
      throw new BrowserActionError(said.startsWith("Agents' browsers") ? said : `The browser could not start: ${said}`);
    }
  }

  async function close(agentId: string) {
    const entry = open.get(agentId);
    open.delete(agentId);
    if (!entry) return;
    const browser = await entry.catch(() => null);
    if (!browser) return;
    clearTimeout(browser.idle);
    await browser.context.close().catch(() => undefined);
    await browser.proxy.close();
  }

  return {
    act(db, target, action, options) {
      return turns.run(target.agentId, async () => {
        options.signal.throwIfAborted();
        const started = performance.now();
        const owner = { workspaceId: target.workspaceId, agentId: target.agentId };
        const starting = () => {
          const pending = start(owner, options.allow);
          open.set(target.agentId, pending);
          pending.catch(() => open.delete(target.agentId));
          return pending;
        };
        let browser = await (open.get(target.agentId) ?? starting());
        if (browser.closed) browser = await starting();
        browser.idle.refresh();
        // A cancel closes the browser: whatever it was doing stops at once.
        const onAbort = () => void close(target.agentId);
        options.signal.addEventListener("abort", onAbort, { once: true });
        try {
          // The hosts the page itself asked for: Chromium's own background requests are neither the page's content
          // nor the model's business.
          const asked = new Set<string>();
          const onRequest = (request: Request) => {
            const host = hostOf(request.url());
            if (host) asked.add(host.toLowerCase());
          };
          browser.context.on("request", onRequest);
          try {
            await perform(browser.page, action);
          } finally {
            browser.context.off("request", onRequest);
          }
          options.signal.throwIfAborted();
          const read = await readPage(browser.page);
          const shot = await browser.page.screenshot({ type: "png", timeout: 10_000 });
          const hosts = browser.proxy.hosts().slice(browser.seenHosts).filter((h) => asked.has(h));
          const refused = browser.proxy.refusals().slice(browser.seenRefusals);
          browser.seenHosts = browser.proxy.hosts().length;
          browser.seenRefusals += refused.length;
          const pageHost = hostOf(read.url);
          const taint = [...new Set([...target.taint, ...(pageHost ? [`web:${pageHost}`] : []), ...hosts.map((h) => `web:${h}`)])];
          const saved = await keepScreenshot(db, target, taint, shot, fileLimits);
          return {
            ...read,
            ...saved,
            hosts: [...new Set([...(pageHost ? [pageHost] : []), ...hosts])],
            refused: refused.filter((r) => asked.has(r.host)).map((r) => r.sentence),
            durationMs: Math.round(performance.now() - started),
          };
        } finally {
          options.signal.removeEventListener("abort", onAbort);
        }
      });
    },
    isOpen: (agentId) => open.has(agentId),
    close,
    async closeAll() {
      await Promise.all([...open.keys()].map((agentId) => close(agentId)));
    },
  };
}

function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.hostname.replace(/^\[(.*)\]$/, "$1") : null;
  } catch {
    return null;
  }
}

/** The element a model means: a link's or button's text, a field's label or placeholder, any text, or a CSS selector. */
async function locate(page: Page, target: string): Promise<Locator> {
  const candidates = [
    page.getByRole("link", { name: target }),
    page.getByRole("button", { name: target }),
    page.getByLabel(target),
    page.getByPlaceholder(target),
    page.getByText(target),
  ];
  for (const candidate of candidates) if ((await candidate.count()) > 0) return candidate.first();
  try {
    const css = page.locator(target);
    if ((await css.count()) > 0) return css.first();
  } catch {
    // Not a selector either.
  }
  throw new BrowserActionError(`Nothing on the page matches "${target}": give a link's or button's text, a field's label, or a CSS selector.`);
}

async function perform(page: Page, action: BrowserAction): Promise<void> {
  try {
    switch (action.action) {
      case "open":
        await page.goto(action.url, { waitUntil: "load" });
        return;
      case "click":
        await (await locate(page, action.target)).click();
        await page.waitForLoadState("load").catch(() => undefined);
        return;
      case "type":
        await (await locate(page, action.target)).fill(action.text);
        return;
      case "press":
        if (action.target) await (await locate(page, action.target)).press(action.key);
        else await page.keyboard.press(action.key);
        await page.waitForLoadState("load").catch(() => undefined);
        return;
      case "scroll":
        await page.mouse.wheel(0, action.direction === "up" ? -700 : 700);
        return;
    }
  } catch (error) {
    if (error instanceof BrowserActionError) throw error;
    // Playwright's messages carry a call log; the first line says what happened.
    const said = String((error as Error).message ?? error).split("\n")[0]!.replace(/^\w+\.\w+: /, "");
    throw new BrowserActionError(`The browser could not ${action.action === "open" ? `open ${action.url}` : action.action}: ${said}`);
  }
}

async function readPage(page: Page): Promise<Pick<BrowserSnapshot, "url" | "title" | "text" | "truncated" | "links">> {
  const read = await page.evaluate((max) => {
    const links: { text: string; url: string }[] = [];
    for (const a of Array.from(document.querySelectorAll("a[href]"))) {
      const href = (a as HTMLAnchorElement).href;
      if (!/^https?:/.test(href)) continue;
      links.push({ text: ((a as HTMLElement).innerText || a.getAttribute("aria-label") || "").trim().slice(0, 200), url: href });
      if (links.length >= max) break;
    }
    return { title: document.title, text: document.body?.innerText ?? "", links };
  }, LINKS_MAX);
  const text = cleanText(read.text).trim();
  return { url: page.url(), title: read.title.trim(), text: text.slice(0, BROWSER_TEXT_MAX_CHARS), truncated: text.length > BROWSER_TEXT_MAX_CHARS, links: read.links };
}

/** Keeps the screenshot as `.browser/<n>.png` and deletes the ones past the last 20. */
async function keepScreenshot(
  db: Db,
  target: { workspaceId: string; agentId: string; runId: string; stepId: string; privateTo: string | null },
  taint: string[],
  png: Buffer,
  limits: FileLimits,
): Promise<{ screenshotPath: string; screenshotVersion: number }> {
  const kept = (await currentFiles(db, target.agentId, BROWSER_FOLDER))
    .map((f) => ({ path: f.path, n: Number(/^\.browser\/(\d+)\.png$/.exec(f.path)?.[1] ?? NaN) }))
    .filter((f) => Number.isInteger(f.n))
    .sort((a, b) => a.n - b.n);
  const next = (kept[kept.length - 1]?.n ?? 0) + 1;
  const path = `${BROWSER_FOLDER}/${next}.png`;
  const dropped = kept.slice(0, Math.max(0, kept.length + 1 - SCREENSHOTS_KEPT)).map((f) => ({ path: f.path, content: null }));
  const written = await writeFiles(
    db,
    { workspaceId: target.workspaceId, agentId: target.agentId },
    { runId: target.runId, stepId: target.stepId, taint, privateTo: target.privateTo },
    [{ path, content: png }, ...dropped],
    limits,
  );
  return { screenshotPath: path, screenshotVersion: written.find((w) => w.path === path)?.version ?? 1 };
}
