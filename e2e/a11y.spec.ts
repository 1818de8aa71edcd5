import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { FeedPage } from "./pages/feed-page";
import { mainPages, seedWorkspace, type Seeded } from "./pages/main-pages";
import { watchNetwork } from "./pages/network";
import { SignInPage } from "./pages/sign-in-page";

let seeded: Seeded;

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await new SignInPage(page).signInAs(OWNER);
  seeded = await seedWorkspace(page, { pendingApproval: true });
  await page.close();
});

interface Finding {
  page: string;
  rule: string;
  impact: string | null | undefined;
  targets: string[];
}

/**
 * Each scheme's walk in two halves, so each test stays well inside its time on a busy machine: the sign-in page and
 * the work pages, then the settings pages, the phone's drawer and the theme menu.
 */
const halves = [
  { name: "the sign-in page and the work pages", pages: (all: { name: string; path: string }[]) => all.filter((p) => !p.path.includes("/settings/")) },
  { name: "the settings pages, the phone's drawer and the theme menu", pages: (all: { name: string; path: string }[]) => all.filter((p) => p.path.includes("/settings/")) },
];

for (const scheme of ["light", "dark"] as const) {
  for (const [half, { name: part, pages }] of halves.entries()) {
    test(`no axe violation on ${part} in ${scheme} mode`, async ({ page }, testInfo) => {
      test.setTimeout(300_000);
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto("/sign-in");
      const findings: Finding[] = [];
      // Every page's count of violations by impact, for the report.
      const counts: Record<string, Record<string, number | string>> = {};
      const check = async (name: string) => {
        await expect(page.locator("html")).toHaveClass(scheme === "dark" ? /\bdark\b/ : /\blight\b/);
        const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
        const row: Record<string, number | string> = { critical: 0, serious: 0, moderate: 0, minor: 0, passed: result.passes.length };
        row.rules = result.violations.map((v) => v.id).join(" ");
        for (const v of result.violations) row[v.impact ?? "minor"] = Number(row[v.impact ?? "minor"] ?? 0) + 1;
        counts[name] = row;
        for (const v of result.violations) {
          findings.push({ page: name, rule: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) });
        }
      };
      if (half === 0) await check("sign-in");
      await new SignInPage(page).signInAs(OWNER);
      const network = watchNetwork(page);
      for (const { name, path } of pages(mainPages(seeded))) {
        await page.goto(path);
        await expect(page.locator("main h1").first(), name).toBeVisible();
        await network.settled();
        await check(name);
      }
      if (half === 1) {
        // The phone's open drawer and an open menu are pages of their own for a screen reader.
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto("/w/demo/approvals");
        await expect(page.getByRole("article").first()).toBeVisible();
        await check("approvals (phone)");
        await page.getByTestId("menu-button").click();
        await expect(page.getByRole("dialog", { name: "Navigation" })).toBeVisible();
        await check("navigation drawer");
        await page.keyboard.press("Escape");
        await page.getByRole("banner").getByRole("button", { name: "Theme" }).click();
        await expect(page.getByRole("menu")).toBeVisible();
        await check("theme menu");
      }
      await testInfo.attach(`axe-${scheme}-${half + 1}.json`, { body: JSON.stringify(counts, null, 2), contentType: "application/json" });
      console.log(`axe, ${scheme} mode, ${part} (violations by impact; rules passed):`);
      console.table(counts);
      expect(findings).toEqual([]);
    });
  }
}

/** The rules of `tags` that `selector` (or the whole page) breaks, with the elements that break them. */
async function axeViolations(page: Page, options: { include?: string; rules?: string[] } = {}) {
  let axe = new AxeBuilder({ page });
  axe = options.rules ? axe.withRules(options.rules) : axe.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]);
  if (options.include) axe = axe.include(options.include);
  const result = await axe.analyze();
  return result.violations.map((v) => ({ rule: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));
}

test("an empty feed (nothing matches its filters) has no axe violation", async ({ page }) => {
  await new SignInPage(page).signInAs(OWNER);
  const feed = new FeedPage(page);
  // A conversation that does not exist: nothing will ever match.
  await feed.goto("demo", `thread=${randomUUID()}`);
  await feed.waitLive();
  await expect(page.getByText("Nothing matches these filters yet.")).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});

test("error codes beside error messages keep 4.5:1 contrast in light and dark mode", async ({ page }) => {
  test.setTimeout(120_000);
  await new SignInPage(page).signInAs(OWNER);
  const headers = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };
  const handle = `broke${Date.now().toString(36)}`;
  const created = await page.request.post("/api/agents", { headers, data: { handle, name: "Broke", model: "offline", tools: ["memory.remember"], description: "Runs on one credit" } });
  expect(created.status()).toBe(201);
  const agentId = ((await created.json()) as { agent: { id: string } }).agent.id;
  // One credit: the first model call is allowed, the one after its tool step fails with a code (unprocessable:budget_exceeded).
  expect((await page.request.put("/api/budgets", { headers, data: { agents: [{ agentId, monthlyBudgetCredits: 1 }] } })).status()).toBe(200);
  try {
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith(handle);
    const chatPath = new URL(page.url()).pathname;
    await chat.send("remember one credit");
    await chat.waitUntilIdle();
    await expect(chat.lastReply().getByRole("alert")).toContainText("unprocessable:budget_exceeded");
    const session = (await (await page.request.get(`/api/sessions/${chatPath.split("/").pop()}`, { headers })).json()) as { messages: { run: { id: string; state: string } | null }[] };
    const failedRun = session.messages.find((m) => m.run?.state === "failed")!.run!.id;

    const found: Record<string, string[]> = {};
    const check = async (where: string, include: string) => {
      found[where] = (await axeViolations(page, { include, rules: ["color-contrast"] })).flatMap((v) => v.targets);
    };
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      // The failed reply in the chat, and the same run's page.
      await page.goto(chatPath);
      await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${scheme}\\b`));
      await expect(chat.lastReply().getByRole("alert")).toContainText("unprocessable:budget_exceeded");
      await check(`chat, ${scheme}`, "main [role=alert]");
      // The run page says it twice: in the run's facts, and under the reply it shows.
      await page.goto(`/w/demo/runs/${failedRun}`);
      await expect(page.getByRole("region", { name: "About this run" }).getByRole("alert")).toContainText("unprocessable:budget_exceeded");
      await expect(page.locator("main [role=alert]").filter({ hasText: "The reply failed" })).toContainText("unprocessable:budget_exceeded");
      await check(`run, ${scheme}`, "main [role=alert]");
      // A form's error, on its tinted strip: a price that is not a number (nothing is saved).
      await page.goto("/w/demo/settings/billing");
      await page.getByRole("region", { name: "Built-in prices" }).getByRole("button", { name: "Set our own" }).first().click();
      await page.getByTestId("workspace-price").getByLabel(/^Input price of /).fill("lots");
      await page.getByRole("button", { name: "Save prices" }).click();
      const notice = page.getByRole("region", { name: "Workspace prices" }).getByTestId("error-notice");
      await expect(notice.getByTestId("error-code")).toHaveText("bad_request:body");
      await check(`prices, ${scheme}`, "[data-testid=error-notice]");
    }
    expect(found).toEqual({ "chat, light": [], "run, light": [], "prices, light": [], "chat, dark": [], "run, dark": [], "prices, dark": [] });
  } finally {
    await page.request.put("/api/budgets", { headers, data: { agents: [{ agentId, monthlyBudgetCredits: null }] } });
  }
});

test("a skip link leads past the navigation to the page", async ({ page }) => {
  await new SignInPage(page).signInAs(OWNER);
  await page.goto("/w/demo/feed");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await skip.press("Enter");
  await expect(page).toHaveURL(/#main$/);
  await expect(page.locator("main#main")).toBeVisible();
});
