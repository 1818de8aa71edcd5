import { expect, test, type Page } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { FeedPage } from "./pages/feed-page";
import { SignInPage } from "./pages/sign-in-page";
import { OverviewCards, UsagePage } from "./pages/usage-page";
import { WorkspaceSettingsPage } from "./pages/workspace-settings-page";

const stamp = () => Date.now().toString(36);

/** A new, empty workspace of the signed-in owner (no agents), made through the API. */
async function newWorkspace(page: Page, name: string, timeZone = "UTC"): Promise<string> {
  const res = await page.request.post("/api/workspaces", { headers: { origin: APP_ORIGIN }, data: { name, timeZone } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { workspace: { slug: string } }).workspace.slug;
}

const agentFilter = (page: Page) => page.getByRole("group", { name: "Filters" }).getByRole("combobox", { name: "Agent" });

/** `YYYY-MM-DD` of the day `days` from today, in UTC (the zone of the workspaces made here). */
const utcDay = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

test.describe("the manager's views", () => {
  test("a manager sets the workspace's time zone and dates are shown in it", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const slug = await newWorkspace(page, `Zones ${stamp()}`);
    // Something with a date on it: an invitation that expires in 7 days.
    const invited = await page.request.post("/api/invitations", {
      headers: { origin: APP_ORIGIN, "x-clawdeck-workspace": slug },
      data: { email: `tz-${stamp()}@e2e.test`, role: "member" },
    });
    expect(invited.status()).toBe(201);
    const expiry = page.locator('[data-testid^="invitation-"] time');

    await page.goto(`/w/${slug}/settings/members`);
    await expect(expiry).toHaveAttribute("title", / UTC$/);

    const settings = new WorkspaceSettingsPage(page);
    await settings.goto(slug);
    await expect(settings.zone()).toHaveValue("UTC");
    // Typed to search: each zone is offered with its offset, and a name that is no zone cannot be saved.
    await expect(page.locator('#workspace-time-zones option[value="Europe/Berlin"]')).toHaveText(/^UTC\+0[12]:00$/);
    await settings.zone().fill("Mars/Olympus");
    await expect(page.getByText("Type part of a place, such as Berlin, and pick the zone from the list.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Save time zone" })).toBeDisabled();
    await settings.setZone("Asia/Tokyo");
    await expect(page.getByTestId("time-zone-preview")).toContainText("GMT+9");

    await page.goto(`/w/${slug}/settings/members`);
    // Tokyo is 9 hours ahead of UTC all year: the tooltip shows that wall clock.
    const inTokyo = new Date(Date.parse((await expiry.getAttribute("datetime"))!) + 9 * 3_600_000);
    const clock = `${String(inTokyo.getUTCHours()).padStart(2, "0")}:${String(inTokyo.getUTCMinutes()).padStart(2, "0")}`;
    await expect(expiry).toHaveAttribute("title", new RegExp(`^\\w{3}, ${inTokyo.getUTCDate()} \\w{3} ${inTokyo.getUTCFullYear()}, ${clock}:\\d\\d GMT\\+9$`));

    // A reload keeps it, and another zone moves every date again.
    await settings.goto(slug);
    await expect(settings.zone()).toHaveValue("Asia/Tokyo");
    await settings.setZone("America/New_York");
    await page.goto(`/w/${slug}/settings/members`);
    await expect(expiry).toHaveAttribute("title", / GMT-[45]$/);

    // Renamed: every page says the new name, and the address stays.
    const renamed = `Renamed ${stamp()}`;
    await settings.goto(slug);
    await settings.rename(renamed);
    await expect(page.locator("#workspace-switcher option:checked")).toHaveText(renamed);
    expect(new URL(page.url()).pathname).toBe(`/w/${slug}/settings/workspace`);
  });

  test("an empty workspace's overview points to making the first agent", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const slug = await newWorkspace(page, `Empty ${stamp()}`);
    const cards = new OverviewCards(page);
    await cards.goto(slug);
    // The approvals figure says what each number is.
    await expect(cards.activityCard().getByTestId("activity-approvals")).toHaveText(/^\d+ pending · \d+ decided today$/);
    const empty = page.getByTestId("no-agents");
    await expect(empty).toContainText("No agents yet");
    await empty.getByRole("link", { name: "Create an agent" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/agents\\?new=1$`));
    await expect(page.getByLabel("Handle")).toBeVisible();
  });

  test("the usage range lives in the address, and a bad custom range is explained and cannot be exported", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    // A workspace of its own (the chart draws the five biggest spenders and "Other", and the demo workspace's
    // agents spend all day in other tests), with one agent whose reply is charged to the ledger.
    const slug = await newWorkspace(page, `Usage ${stamp()}`);
    const made = await page.request.post("/api/agents", {
      headers: { origin: APP_ORIGIN, "x-clawdeck-workspace": slug },
      data: { handle: "scribe", name: "Scribe", model: "offline" },
    });
    expect(made.status()).toBe(201);
    const scribeColor = ((await made.json()) as { agent: { color: string } }).agent.color;
    const chat = new ChatPage(page);
    await chat.goto(slug);
    await chat.startWith("scribe");
    await chat.send("hello");
    await chat.waitUntilIdle();

    const usage = new UsagePage(page);
    const range = page.getByRole("group", { name: "Range" });
    await page.goto(`/w/${slug}/usage?range=30d`);
    await expect(range.getByRole("button", { name: "30 days" })).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    await expect(range.getByRole("button", { name: "30 days" })).toHaveAttribute("aria-pressed", "true");
    await usage.choose("Today");
    await expect(page).toHaveURL(/[?&]range=today(&|$)/);
    // @scribe's own colour, in the spend chart (its bar and its legend entry) and in the tokens chart's legend.
    await expect(async () => {
      await page.reload();
      await expect(usage.chart("Spend over time").locator(`path[fill="${scribeColor}"]`).first()).toBeAttached({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(usage.chart("Tokens over time").locator(`.recharts-legend-item path[fill="${scribeColor}"], .recharts-legend-item svg [fill="${scribeColor}"]`).first()).toBeVisible();

    // A custom range whose start is after its end: said inline, no export of any other range.
    await page.goto(`/w/${slug}/usage?from=${utcDay(-2)}&to=${utcDay(-5)}`);
    await expect(range.getByRole("button", { name: "Custom" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByTestId("usage-range-problem")).toHaveText(/start day is after the end day/);
    await expect(page.getByRole("link", { name: "Export CSV" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();
    await expect(usage.table()).toHaveCount(0);

    // Unparsable and too long are refused the same way.
    await page.goto(`/w/${slug}/usage?from=yesterday&to=${utcDay(0)}`);
    await expect(page.getByTestId("usage-range-problem")).toHaveText(/"yesterday" is not a day/);
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();
    await page.goto(`/w/${slug}/usage?from=${utcDay(-500)}&to=${utcDay(0)}`);
    await expect(page.getByTestId("usage-range-problem")).toHaveText(/at most 400/);
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();

    // Fixing it brings the export back, for exactly the days in the address.
    await page.getByLabel("From").fill(utcDay(-3));
    await expect(page).toHaveURL(new RegExp(`from=${utcDay(-3)}&to=${utcDay(0)}`));
    await expect(page.getByTestId("usage-range-problem")).toHaveCount(0);
    const csv = page.getByRole("link", { name: "Export CSV" });
    await expect(csv).toHaveAttribute("href", new RegExp(`from=${utcDay(-3)}T00%3A00%3A00\\.000Z`));
  });

  test("the feed filters by handle in the address, its dot says Paused, and an approval opens selected in the inbox", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    // Two approvals, so the one opened from the feed is not simply the inbox's first card.
    const chat = new ChatPage(page);
    for (const n of [1, 2]) {
      await chat.goto("demo");
      await chat.startWith("herald");
      await chat.send(`slack #general feed link ${n} ${stamp()}`);
      await expect(chat.step(chat.lastReply(), "slack.post").getByTestId("approval-pending")).toBeVisible({ timeout: 20_000 });
    }

    const feed = new FeedPage(page);
    await feed.goto("demo");
    await feed.waitLive();
    await agentFilter(page).selectOption({ label: "@herald" });
    await expect(page).toHaveURL(/[?&]agent=herald(&|$)/);
    await page.reload();
    await expect(agentFilter(page)).toHaveValue("herald");
    await feed.waitLive();

    const status = page.getByRole("region", { name: "Feed" }).getByTestId("feed-status");
    await expect(status).toHaveText("Live");
    await feed.pause();
    await expect(status).toHaveText("Paused");
    await expect(status).toHaveAttribute("data-paused", "true");
    await expect(status.locator("span").first()).not.toHaveClass(/animate-pulse|emerald/);
    await feed.resume();
    await expect(status).toHaveText("Live");

    // An unknown handle says so instead of showing everything.
    await feed.goto("demo", "agent=nobody-here");
    await expect(page.getByTestId("feed-unknown-agent")).toContainText("@nobody-here");

    await feed.goto("demo", "agent=herald&kind=approval_requested");
    await feed.waitLive();
    // Newest first: the top one is this test's second request, still waiting.
    const item = feed.item(/^@herald · approval requested/).first();
    await item.getByRole("link", { name: "Approval", exact: true }).click();
    await expect(page).toHaveURL(/\/approvals\?approval=[0-9a-f-]{36}$/);
    const id = new URL(page.url()).searchParams.get("approval")!;
    const card = page.locator(`li[data-item-id="${id}"] article`);
    await expect(card).toHaveAttribute("aria-current", "true");
    await expect(card).toContainText("@herald");
    await expect(page.locator('article[aria-current="true"]')).toHaveCount(1);
  });
});
