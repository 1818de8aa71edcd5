import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

const DEMO = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };

test("a reviewer triages three approvals with the keyboard only", async ({ page, browser, baseURL }) => {
  await new SignInPage(page).signInAs(OWNER);
  const handle = `keys${Date.now().toString(36)}`;
  const agent = await page.request.post("/api/agents", {
    headers: DEMO,
    data: { handle, name: "Keys", model: "offline", tools: ["http.fetch", "slack.post"], description: "Posts what it reads" },
  });
  expect(agent.status()).toBe(201);
  // Three chats, each stopped at a post that waits for a reviewer (reading a web page first taints the run).
  for (const word of ["one", "two", "three"]) {
    const session = await page.request.post("/api/sessions", { headers: DEMO, data: { agentHandle: handle } });
    expect(session.status()).toBe(201);
    const { id } = (await session.json()) as { id: string };
    const sent = await page.request.post(`/api/sessions/${id}/messages`, { headers: DEMO, data: { text: `fetch ${baseURL}/sign-in\nslack #general post ${word}` } });
    expect(sent.ok()).toBe(true);
  }

  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    // The card list: every card shown, one after another (a window narrower than the list beside a detail pane).
    await reviewer.page.setViewportSize({ width: 1100, height: 900 });
    const inbox = new ApprovalsPage(reviewer.page);
    await inbox.goto("demo");
    const cards = inbox.card(handle);
    await expect(cards).toHaveCount(3, { timeout: 20_000 });
    const keys = reviewer.page.keyboard;

    // ? lists the keys.
    await keys.press("?");
    const help = reviewer.page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(help).toContainText("approve");
    await keys.press("Escape");
    await expect(help).toBeHidden();

    // j moves the selection down the list, k back up; a approves the selected card.
    // Other tests may leave cards of their own above ours (the list is ordered by expiry).
    const all = inbox.pending().getByRole("article");
    const ours = await all.evaluateAll((els, h) => els.findIndex((el) => (el.getAttribute("aria-label") ?? "").endsWith(`by @${h}`)), handle);
    expect(ours).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < ours + 1; i += 1) await keys.press("j");
    await expect(all.nth(ours + 1)).toBeFocused();
    await keys.press("k");
    const first = cards.first();
    await expect(first).toBeFocused();
    const firstText = await first.getByTestId("approval-preview").innerText();
    await keys.press("a");
    await expect(cards).toHaveCount(2);
    await expect(inbox.pending()).not.toContainText(firstText);

    // r on the next card asks for a reason; typing it is not taken for shortcuts.
    await cards.first().focus();
    await keys.press("r");
    const reason = cards.first().getByLabel(/Reason for rejecting/);
    await expect(reason).toBeFocused();
    await keys.type("already posted, thanks");
    await expect(cards).toHaveCount(2);
    await cards.first().getByRole("button", { name: "Confirm rejection" }).click();
    await expect(cards).toHaveCount(1);

    // e opens the editor on the last card; Escape out of the field, then o opens its conversation.
    await cards.first().focus();
    await keys.press("e");
    await expect(cards.first().getByLabel("Channel")).toBeFocused();
    await cards.first().getByRole("button", { name: "Back" }).click();
    await cards.first().focus();
    await keys.press("o");
    await expect(reviewer.page).toHaveURL(/\/chat\//);
    // The reviewer reads the owner's chat, read-only: titled with whose it is, without their own chat list or a composer.
    await expect(reviewer.page.getByRole("heading", { level: 1, name: "Owner’s chat with Keys" })).toBeVisible();
    await expect(reviewer.page.getByTestId("read-only-chat")).toContainText("Only Owner writes in this chat");
    await expect(reviewer.page.getByRole("complementary", { name: "Your chats" })).toHaveCount(0);
    await expect(reviewer.page.getByRole("form", { name: "Send a message" })).toHaveCount(0);

    const history = await (async () => {
      await inbox.goto("demo");
      return inbox.openHistory();
    })();
    await expect(history.getByRole("listitem", { name: /^approved: / }).first()).toBeVisible();
    await expect(history.getByRole("listitem", { name: /^rejected: / }).first()).toContainText("already posted, thanks");
  } finally {
    await reviewer.context.close();
  }
});
