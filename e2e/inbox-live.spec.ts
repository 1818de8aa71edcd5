import { expect, test, type Page } from "@playwright/test";
import { OWNER } from "./fixtures";
import { agentAsked, DEMO } from "./asked";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

/** A window narrower than the one that shows the list beside a detail pane. */
const CARD_LIST = { width: 1100, height: 900 };

/** A fresh offline agent whose Slack posts wait for a reviewer, one per word; returns its handle and the pending ids. */
async function askForPosts(page: Page, prefix: string, words: string[], extraLine = "") {
  const { handle } = await agentAsked(page, prefix, words.map((word) => `${extraLine}slack #general post ${word}`), ["http.fetch", "slack.post"]);
  let ids: string[] = [];
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/approvals?status=pending&agent=${handle}`, { headers: DEMO });
      ids = ((await res.json()) as { approvals: { id: string }[] }).approvals.map((a) => a.id);
      return ids.length;
    }, { timeout: 20_000 })
    .toBe(words.length);
  return { handle, ids };
}

test("a card approved by another reviewer stays in place, greyed, with who and when; the typed reason is kept and was not sent", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await new SignInPage(page).signInAs(OWNER);
  const { handle, ids } = await askForPosts(page, "twice", ["alpha", "beta"]);
  const a = await personWithRole(browser, page, "reviewer");
  const b = await personWithRole(browser, page, "reviewer");
  try {
    // Below the width that puts a detail pane beside the list, every card is shown, one after another.
    await a.page.setViewportSize(CARD_LIST);
    const inbox = new ApprovalsPage(a.page);
    await inbox.goto("demo");
    const cards = inbox.card(handle);
    await expect(cards).toHaveCount(2, { timeout: 20_000 });
    const target = cards.filter({ hasText: "alpha" });
    const other = cards.filter({ hasText: "beta" });
    await target.getByRole("button", { name: "Reject…" }).click();
    await target.getByLabel(/Reason for rejecting/).fill("wrong channel, use #ops");
    const otherBox = await other.boundingBox();

    // Reviewer B approves the same request from another browser.
    const alphaId = await a.page.evaluate(async (h) => {
      const res = await fetch(`/api/approvals?status=pending&agent=${h}`, { headers: { "x-clawdeck-workspace": "demo" } });
      const body = (await res.json()) as { approvals: { id: string; preview: { body?: string; fields: { value: string }[] } }[] };
      return body.approvals.find((x) => JSON.stringify(x.preview).includes("alpha"))!.id;
    }, handle);
    expect(ids).toContain(alphaId);
    const approved = await b.page.request.post(`/api/approvals/${alphaId}/decision`, { headers: DEMO, data: { decision: "approve" } });
    expect(approved.status()).toBe(200);

    // A sees it decided, in place, with B's name and when; buttons off; the reason still there, said to be unsent.
    const outcome = target.getByTestId("decided-elsewhere");
    await expect(outcome).toContainText(`Approved by ${b.person.name}`, { timeout: 15_000 });
    await expect(outcome.locator("time")).toHaveText("just now");
    await expect(target).toHaveAttribute("data-gone", "true");
    await expect(target.getByRole("button", { name: "Confirm rejection" })).toBeDisabled();
    await expect(target.getByLabel(/Reason for rejecting/)).toHaveValue("wrong channel, use #ops");
    await expect(target.getByTestId("draft-not-sent")).toContainText("Your reason was not sent");
    await expect(cards).toHaveCount(2);
    // The other card did not move.
    expect(await other.boundingBox()).toEqual(otherBox);

    // The reason can be copied.
    await a.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await target.getByRole("button", { name: "Copy your reason" }).click();
    await expect.poll(() => a.page.evaluate(() => navigator.clipboard.readText())).toBe("wrong channel, use #ops");

    // Dismiss takes it away.
    await target.getByRole("button", { name: "Dismiss" }).click();
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toContainText("beta");
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test("while the pointer is over the list, a new request is announced instead of being inserted above", async ({ page, browser }) => {
  test.setTimeout(90_000);
  await new SignInPage(page).signInAs(OWNER);
  const { handle } = await askForPosts(page, "steady", ["first"]);
  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    await reviewer.page.setViewportSize(CARD_LIST);
    const inbox = new ApprovalsPage(reviewer.page);
    await reviewer.page.goto(`/w/demo/approvals?agent=${handle}`);
    const cards = inbox.card(handle);
    await expect(cards).toHaveCount(1, { timeout: 20_000 });
    const approve = cards.first().getByRole("button", { name: "Approve", exact: true });
    await approve.hover();
    const before = await approve.boundingBox();

    // Sorted by newest, a second request would go on top, under the pointer.
    await reviewer.page.getByLabel("Sort").selectOption("newest");
    await approve.hover();
    const session = await page.request.post("/api/sessions", { headers: DEMO, data: { agentHandle: handle } });
    const { id } = (await session.json()) as { id: string };
    expect((await page.request.post(`/api/sessions/${id}/messages`, { headers: DEMO, data: { text: "slack #general post second" } })).ok()).toBe(true);

    const announced = inbox.pending().getByTestId("new-approvals");
    await expect(announced).toHaveText("1 new — show", { timeout: 30_000 });
    await expect(cards).toHaveCount(1);
    expect((await approve.boundingBox())?.y).toBe(before?.y);
    // "show" is clicked where the pointer is: moving the pointer to it leaves the list, which shows the new request by
    // itself (and takes the button away under the click).
    await announced.dispatchEvent("click");
    await expect(cards).toHaveCount(2);
    await expect(cards.first()).toContainText("second");
  } finally {
    await reviewer.context.close();
  }
});

test("pending filters by agent, category and taint, kept in the address", async ({ page, baseURL }) => {
  await new SignInPage(page).signInAs(OWNER);
  const plain = await askForPosts(page, "plain", ["calm"]);
  const tainted = await askForPosts(page, "taint", ["loud"], `fetch ${baseURL}/sign-in\n`);
  const inbox = new ApprovalsPage(page);
  await inbox.goto("demo");
  const filters = inbox.pending().getByRole("group", { name: "Filters" });

  await filters.getByRole("combobox", { name: /^Agent/ }).selectOption(tainted.handle);
  await expect(page).toHaveURL(new RegExp(`[?&]agent=${tainted.handle}`));
  await expect(inbox.requests(tainted.handle)).toHaveCount(1);
  await expect(inbox.requests(plain.handle)).toHaveCount(0);

  await filters.getByRole("combobox", { name: /^Agent/ }).selectOption("");
  await filters.getByRole("combobox", { name: /^Category/ }).selectOption("tainted_egress");
  await expect(page).toHaveURL(/[?&]category=tainted_egress/);
  await expect(inbox.requests(tainted.handle)).toHaveCount(1);
  await expect(inbox.requests(plain.handle)).toHaveCount(0);

  await filters.getByRole("combobox", { name: /^Category/ }).selectOption("");
  await filters.getByRole("combobox", { name: /^Taint/ }).selectOption("web:127.0.0.1");
  await expect(page).toHaveURL(/[?&]taint=web%3A127\.0\.0\.1/);
  await expect(inbox.requests(tainted.handle)).toHaveCount(1);
  await expect(inbox.requests(plain.handle)).toHaveCount(0);

  // The address alone brings the same view back.
  await page.goto(`/w/demo/approvals?category=external_send&agent=${plain.handle}`);
  await expect(filters.getByRole("combobox", { name: /^Category/ })).toHaveValue("external_send");
  await expect(filters.getByRole("combobox", { name: /^Agent/ })).toHaveValue(plain.handle);
  await expect(inbox.requests(plain.handle)).toHaveCount(1);
  await expect(inbox.requests(tainted.handle)).toHaveCount(0);
  await page.goto(`/w/demo/approvals?agent=${plain.handle}&category=tainted_egress`);
  await expect(inbox.pending()).toContainText("Nothing waiting matches these filters.");
});

test("rejecting says the reason is required; an empty reason is not sent", async ({ page }) => {
  await new SignInPage(page).signInAs(OWNER);
  const { handle, ids } = await askForPosts(page, "why", ["gamma"]);
  const inbox = new ApprovalsPage(page);
  await page.goto(`/w/demo/approvals?agent=${handle}`);
  const card = inbox.card(handle);
  await expect(card).toHaveCount(1, { timeout: 20_000 });
  await card.getByRole("button", { name: "Reject…" }).click();
  const reason = card.getByLabel(/Reason for rejecting/);
  await expect(reason).toHaveAccessibleDescription("Required: the agent is told why.");
  await card.getByRole("button", { name: "Confirm rejection" }).click();
  await expect(card.getByRole("alert")).toHaveText("Say why you reject it: the agent is told the reason.");
  await expect(reason).toHaveAttribute("aria-invalid", "true");
  const still = await page.request.get(`/api/approvals/${ids[0]}`, { headers: DEMO });
  expect(((await still.json()) as { approval: { status: string } }).approval.status).toBe("pending");

  await reason.fill("not today");
  await expect(card.getByRole("alert")).toHaveCount(0);
  await card.getByRole("button", { name: "Confirm rejection" }).click();
  await expect(card).toHaveCount(0);
  const done = await page.request.get(`/api/approvals/${ids[0]}`, { headers: DEMO });
  expect(((await done.json()) as { approval: { status: string; reason: string } }).approval).toMatchObject({ status: "rejected", reason: "not today" });
});
