import { expect, test, type Page } from "@playwright/test";
import { OWNER } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { ChatPage } from "./pages/chat-page";
import { FeedPage } from "./pages/feed-page";
import { horizontalOverflow, mainPages, outsideScreen, seedWorkspace, type Seeded } from "./pages/main-pages";
import { watchNetwork } from "./pages/network";
import { codesOnScreen } from "./pages/plain-words";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

const PHONE = { width: 390, height: 844 };
const SMALL_PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1440, height: 900 };

let seeded: Seeded;

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await new SignInPage(page).signInAs(OWNER);
  seeded = await seedWorkspace(page);
  await page.close();
});

async function signedIn(page: Page, viewport: { width: number; height: number }) {
  await page.setViewportSize(viewport);
  await new SignInPage(page).signInAs(OWNER);
}

// The smallest phone in the dark theme, the others in the light one: between them, both themes at every page.
for (const [viewport, scheme] of [[SMALL_PHONE, "dark"], [PHONE, "light"], [DESKTOP, "light"]] as const) {
  test(`at ${viewport.width}×${viewport.height} (${scheme}) no page scrolls sideways or shows a code where a person expects words`, async ({ page }) => {
    // About twenty pages, each waited on until its data has arrived.
    test.setTimeout(180_000);
    await page.emulateMedia({ colorScheme: scheme });
    await signedIn(page, viewport);
    const network = watchNetwork(page);
    const codes: Record<string, string[]> = {};
    for (const { name, path } of mainPages(seeded)) {
      await page.goto(path);
      await expect(page.locator("main h1").first(), name).toBeVisible();
      // Charts and lists settle after their data arrives.
      await network.settled();
      expect({ page: name, overflow: await horizontalOverflow(page) }).toEqual({ page: name, overflow: 0 });
      const found = await codesOnScreen(page);
      if (found.length > 0) codes[name] = found;
    }
    expect(codes).toEqual({});
  });
}

test("at 360 px every policy row shows its values and controls on the screen, without a box to scroll sideways", async ({ page }) => {
  await signedIn(page, SMALL_PHONE);
  await page.goto("/w/demo/settings/policy");
  await expect(page.getByLabel("Override for slack.post")).toBeVisible();
  const found: Record<string, string[]> = {};
  for (const name of ["Tools", "Categories"]) {
    const { shown, outside } = await outsideScreen(page.getByRole("region", { name, exact: true }));
    expect(shown, name).toBeGreaterThan(5);
    found[name] = outside;
  }
  expect(found).toEqual({ Tools: [], Categories: [] });
  expect(await horizontalOverflow(page)).toBe(0);
});

test("at 360 px every budget and price row shows its values and controls on the screen, without a box to scroll sideways", async ({ page }) => {
  await signedIn(page, SMALL_PHONE);
  await page.goto("/w/demo/settings/billing");
  await expect(page.getByLabel("Workspace monthly budget in US dollars")).toBeVisible();
  // A price of the workspace's own and its own default: every kind of row the prices table has (nothing is saved).
  await page.getByRole("region", { name: "Built-in prices" }).getByRole("button", { name: "Set our own" }).first().click();
  await expect(page.getByTestId("workspace-price")).toHaveCount(1);
  await page.getByRole("checkbox", { name: /^Any other model/ }).check();
  await expect(page.getByLabel("Input price of models without a price, US dollars per million tokens")).toBeVisible();
  const found: Record<string, string[]> = {};
  for (const name of ["Budgets", "Workspace prices", "Built-in prices"]) {
    const scope = name === "Budgets" ? page.getByRole("form", { name }) : page.getByRole("region", { name, exact: true });
    const { shown, outside } = await outsideScreen(scope);
    expect(shown, name).toBeGreaterThan(5);
    found[name] = outside;
  }
  expect(found).toEqual({ Budgets: [], "Workspace prices": [], "Built-in prices": [] });
  expect(await horizontalOverflow(page)).toBe(0);
});

test("at 360 px a feed item's time and links sit on a line above its text, which has the row's full width", async ({ page }) => {
  await signedIn(page, SMALL_PHONE);
  const feed = new FeedPage(page);
  await feed.goto("demo");
  await feed.waitLive();
  const item = feed.list().getByRole("article").first();
  await expect(item).toBeVisible();
  const row = (await item.boundingBox())!;
  const text = (await item.locator("p").first().boundingBox())!;
  const time = (await item.locator("time").boundingBox())!;
  // The row is the card's width less its padding (16 px each side); the text takes all of it.
  expect(text.width).toBeGreaterThanOrEqual(row.width - 32 - 1);
  expect(text.width).toBeGreaterThanOrEqual(290);
  expect(time.y + time.height).toBeLessThanOrEqual(text.y + 1);
});

test("at 360 px the door-token form stacks its fields, each the card's width", async ({ page }) => {
  await signedIn(page, SMALL_PHONE);
  await page.goto(`/w/demo/agents/${seeded.agentId}`);
  const panel = page.getByTestId("door-tokens");
  const name = panel.getByLabel("Name");
  await expect(name).toBeVisible();
  const nameBox = (await name.boundingBox())!;
  const expiresBox = (await panel.getByLabel("Expires (optional)").boundingBox())!;
  const createBox = (await panel.getByRole("button", { name: "Create token" }).boundingBox())!;
  for (const [field, box] of Object.entries({ name: nameBox, expires: expiresBox })) {
    expect({ field, wide: box.width >= 250, inside: box.x >= 0 && box.x + box.width <= SMALL_PHONE.width }).toEqual({ field, wide: true, inside: true });
  }
  expect(expiresBox.y).toBeGreaterThanOrEqual(nameBox.y + nameBox.height);
  expect(createBox.x + createBox.width).toBeLessThanOrEqual(SMALL_PHONE.width);
  expect(await horizontalOverflow(page)).toBe(0);
});

test("on a phone the navigation is a drawer behind a menu button that counts pending approvals", async ({ page, browser, baseURL }) => {
  await signedIn(page, PHONE);
  const chat = new ChatPage(page);
  await page.goto(`/w/demo/chat/${seeded.sessionId}`);
  await chat.send(`fetch ${baseURL}/sign-in\nslack #general from the phone`);
  const pending = chat.step(chat.lastReply(), "slack.post").getByTestId("approval-pending");
  await expect(pending).toBeVisible();
  // The notice says why the call waits (the run read a web page, and this call passes content on), once.
  expect((await pending.innerText()).match(/untrusted content/g)).toHaveLength(1);
  // An open chat fills the screen: the page itself does not scroll, only its messages do.
  expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeLessThanOrEqual(0);

  // Four eyes: someone other than the requester decides.
  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    const phone = reviewer.page;
    await phone.setViewportSize(PHONE);
    await phone.goto("/w/demo");
    await expect(phone.getByRole("navigation", { name: "Main" })).toBeHidden();
    const menu = phone.getByTestId("menu-button");
    await expect(menu).toHaveAccessibleName(/^Menu, [1-9]\d* approvals? pending$/);
    await expect(phone.getByTestId("menu-pending-badge")).toHaveText(/^[1-9]\d*$/);

    await menu.click();
    const drawer = phone.getByRole("dialog", { name: "Navigation" });
    await expect(drawer).toBeVisible();
    await drawer.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Approvals/ }).click();
    await expect(phone).toHaveURL(/\/w\/demo\/approvals$/);
    await expect(drawer).toBeHidden();

    // The card reads at phone width and its decision buttons are big enough for a thumb.
    const inbox = new ApprovalsPage(phone);
    const card = inbox.card(seeded.handle).first();
    await expect(card.getByTestId("approval-preview")).toContainText("from the phone");
    const approve = card.getByRole("button", { name: "Approve", exact: true });
    const reject = card.getByRole("button", { name: "Reject…" });
    for (const button of [approve, reject]) {
      const box = (await button.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(40);
      expect(box.width).toBeGreaterThanOrEqual(120);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    expect(await horizontalOverflow(phone)).toBe(0);
    const pendingBefore = Number(await phone.getByTestId("menu-pending-badge").textContent());
    await approve.click();
    await expect(phone.getByRole("region", { name: /^Notifications/ })).toContainText("Approved: Post to Slack");
    await expect(inbox.card(seeded.handle)).toHaveCount(0);
    // The count on the menu button goes down by one (other tests may leave approvals waiting).
    const left = pendingBefore - 1;
    await expect(menu).toHaveAccessibleName(left === 0 ? "Menu" : `Menu, ${left} approval${left === 1 ? "" : "s"} pending`);
  } finally {
    await reviewer.context.close();
  }
});

test("on a phone the chat composer spans the width and sends", async ({ page }) => {
  await signedIn(page, PHONE);
  const chat = new ChatPage(page);
  await page.goto(`/w/demo/chat/${seeded.sessionId}`);
  const box = (await chat.input().boundingBox())!;
  expect(box.width).toBeGreaterThanOrEqual(PHONE.width * 0.6);
  await expect(chat.userMessages().first()).toContainText("hello there");
  // The previous test's reply (resumed after its approval) may still be finishing in this chat.
  await chat.waitUntilIdle();
  const before = await chat.userMessages().count();
  await chat.send("sent from a phone");
  await expect(chat.userMessages()).toHaveCount(before + 1);
  await expect(chat.userMessages().last()).toContainText("sent from a phone");
  await chat.waitUntilIdle();
  // Copy and Retry show without hover, inside the screen, big enough to tap.
  for (const button of [
    chat.userMessages().last().getByRole("button", { name: "Copy message" }),
    chat.userMessages().last().getByRole("button", { name: "Send this message again" }),
    chat.lastReply().getByRole("button", { name: "Copy reply" }),
  ]) {
    await expect(button).toBeVisible();
    const tap = (await button.boundingBox())!;
    expect(tap.height).toBeGreaterThanOrEqual(32);
    expect(tap.x + tap.width).toBeLessThanOrEqual(PHONE.width);
  }
  expect(await horizontalOverflow(page)).toBe(0);
});

test("on a desktop the navigation is a column and the menu button is gone", async ({ page }) => {
  await signedIn(page, DESKTOP);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByTestId("menu-button")).toBeHidden();
  await page.goto("/w/demo/usage");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});

test("dark mode follows the device and the toggle overrides it", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await signedIn(page, DESKTOP);
  const html = page.locator("html");
  await expect(html).toHaveClass(/\bdark\b/);
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const dark = await background();

  await page.getByRole("navigation", { name: "Main" }).waitFor();
  await page.getByRole("button", { name: "Theme" }).click();
  await page.getByRole("menuitemradio", { name: "Light" }).click();
  await expect(html).not.toHaveClass(/\bdark\b/);
  expect(await background()).not.toBe(dark);

  // The choice is kept across a reload, and the theme script ran under the page's CSP.
  const refused: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  await page.reload();
  await expect(html).not.toHaveClass(/\bdark\b/);
  await page.getByRole("button", { name: "Theme" }).click();
  await page.getByRole("menuitemradio", { name: "Dark" }).click();
  await expect(html).toHaveClass(/\bdark\b/);
  await page.reload();
  await expect(html).toHaveClass(/\bdark\b/);
  expect(refused).toEqual([]);
});

test("the favicon, the app icons and the web manifest are served", async ({ request }) => {
  for (const path of ["/favicon.ico", "/icon.svg", "/icon-192.png", "/icon-512.png", "/apple-touch-icon.png"]) {
    const response = await request.get(path);
    expect({ path, status: response.status() }).toEqual({ path, status: 200 });
  }
  const manifest = await request.get("/manifest.webmanifest");
  expect(manifest.status()).toBe(200);
  expect((await manifest.json()) as { name: string }).toMatchObject({ name: "Clawdeck", start_url: "/" });
});
