import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { OWNER } from "./fixtures";
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

for (const scheme of ["light", "dark"] as const) {
  test(`no axe violation on any page in ${scheme} mode`, async ({ page }, testInfo) => {
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
    await check("sign-in");
    await new SignInPage(page).signInAs(OWNER);
    const network = watchNetwork(page);
    for (const { name, path } of mainPages(seeded)) {
      await page.goto(path);
      await expect(page.locator("main h1").first(), name).toBeVisible();
      await network.settled();
      await check(name);
    }
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
    await testInfo.attach(`axe-${scheme}.json`, { body: JSON.stringify(counts, null, 2), contentType: "application/json" });
    console.log(`axe, ${scheme} mode (violations by impact; rules passed):`);
    console.table(counts);
    expect(findings).toEqual([]);
  });
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
