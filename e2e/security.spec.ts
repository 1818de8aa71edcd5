import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";

const PAGES = [
  "/w/demo",
  "/w/demo/chat",
  "/w/demo/approvals",
  "/w/demo/outbox",
  "/w/demo/agents",
  "/w/demo/rooms",
  "/w/demo/feed",
  "/w/demo/missions",
  "/w/demo/missions/crews/new",
  "/w/demo/usage",
  "/w/demo/settings/members",
  "/w/demo/settings/policy",
  "/w/demo/settings/billing",
  "/w/demo/settings/connections",
];

/** Collects every Content-Security-Policy violation the page reports, as events and as console errors. */
async function watchViolations(page: Page) {
  const violations: string[] = [];
  await page.exposeFunction("__reportCspViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} in ${e.documentURI}`);
    });
  });
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

function nonceOf(policy: string | undefined): string {
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy ?? "")?.[1];
  expect(nonce, `a nonce in ${policy}`).toBeTruthy();
  return nonce!;
}

test.describe("security headers", () => {
  test("every main page loads and works under the Content-Security-Policy with no violation, its scripts carrying this response's nonce", async ({ page }) => {
    const violations = await watchViolations(page);
    const signIn = await page.goto("/sign-in");
    const signInNonce = nonceOf(signIn?.headers()["content-security-policy"]);
    await new SignInPage(page).signInAs(OWNER);

    const nonces = new Set([signInNonce]);
    for (const path of PAGES) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      const nonce = nonceOf(response?.headers()["content-security-policy"]);
      nonces.add(nonce);
      // Hydrated: the app shell's client code runs (the sign-out button is rendered by React on the client too).
      await expect(page.getByRole("main")).toBeVisible();
      // Every script the page is sent with carries this response's nonce…
      const sent = (await response!.text()).match(/<script\b[^>]*>/g) ?? [];
      expect(sent.length, path).toBeGreaterThan(0);
      expect(sent.filter((tag) => !tag.includes(` nonce="${nonce}"`)), `${path}: every script sent carries the nonce`).toEqual([]);
      // …and those added since are the app's own chunks, loaded by them ('strict-dynamic'), or carry it too.
      const scripts = await page.locator("script").evaluateAll((els) => els.map((el) => ({ src: (el as HTMLScriptElement).src, nonce: (el as HTMLScriptElement).nonce })));
      const own = new URL("/_next/static/chunks/", page.url()).href;
      expect(scripts.filter((el) => el.nonce !== nonce && !el.src.startsWith(own)), `${path}: scripts added since`).toEqual([]);
    }
    expect(nonces.size).toBe(PAGES.length + 1);

    // A live chat: the reply streams as an event stream and a tool step renders.
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith("scout");
    await chat.send("remember the launch is on Tuesday");
    await expect(chat.stepStatus(chat.step(chat.lastReply(), "memory.remember"))).toHaveText("Succeeded");
    await expect(chat.stopButton()).toHaveCount(0);

    expect(violations).toEqual([]);
  });

  test("pages and API responses send the security headers; the page policy forbids framing and foreign scripts", async ({ page }) => {
    const response = await page.request.get("/sign-in");
    const headers = response.headers();
    const policy = headers["content-security-policy"]!;
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'(;|$)/);
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("object-src 'none'");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["permissions-policy"]).toMatch(/camera=\(\).*microphone=\(\).*geolocation=\(\)/);
    expect(headers["x-frame-options"]).toBe("DENY");

    const again = await page.request.get("/sign-in");
    expect(nonceOf(again.headers()["content-security-policy"])).not.toBe(nonceOf(policy));

    for (const api of [await page.request.get("/api/health"), await page.request.get("/api/agents")]) {
      expect(api.headers()["x-content-type-options"]).toBe("nosniff");
      expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  test("the app refuses to render inside another site's frame, while that site's own frame renders", async ({ page }) => {
    // Another site on this machine (another port is another origin) that frames the app's sign-in page.
    const framer = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(req.url === "/own" ? "<h1>Framer's own page</h1>" : `<!doctype html><title>Framer</title><iframe title="app" src="${APP_ORIGIN}/sign-in"></iframe><iframe title="own" src="/own"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, "127.0.0.1", resolve));
    const refusals: string[] = [];
    page.on("console", (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
    });
    try {
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      await expect(page.frameLocator("iframe[title=own]").getByRole("heading", { name: "Framer's own page" })).toBeVisible();
      await expect.poll(() => refusals.length).toBeGreaterThan(0);
      expect(refusals[0]).toContain(`Framing '${APP_ORIGIN}/' violates the following Content Security Policy directive: "frame-ancestors 'none'"`);
      await expect(page.frameLocator("iframe[title=app]").getByRole("heading", { name: "Sign in" })).toHaveCount(0);
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });

  test("an API write with no Origin is refused (403 forbidden:origin); the same write with the app's Origin passes the check", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const bare = await page.request.post("/api/workspaces", { data: { name: "No origin" } });
    expect(bare.status()).toBe(403);
    expect((await bare.json()).code).toBe("forbidden:origin");
    const foreign = await page.request.post("/api/workspaces", { headers: { origin: "http://evil.example" }, data: { name: "Foreign" } });
    expect((await foreign.json()).code).toBe("forbidden:origin");
    const own = await page.request.post("/api/workspaces", { headers: { origin: APP_ORIGIN }, data: { name: `Own origin ${Date.now()}` } });
    expect(own.status()).toBe(201);
  });
});
