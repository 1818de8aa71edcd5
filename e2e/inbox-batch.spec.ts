import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { agentAsked, DEMO } from "./asked";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

test("a reviewer decides several requests at once: x ticks one, 'select all like this' ticks the rest, and the one of their own is refused with the reason", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await new SignInPage(page).signInAs(OWNER);
  const { handle } = await agentAsked(page, "batch", ["slack #general one", "slack #ops two", "slack #random three"]);

  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    // One request of the reviewer's own: four eyes keeps them from approving it, in a batch as anywhere.
    const session = await reviewer.page.request.post("/api/sessions", { headers: DEMO, data: { agentHandle: handle } });
    expect(session.status()).toBe(201);
    const { id } = (await session.json()) as { id: string };
    expect((await reviewer.page.request.post(`/api/sessions/${id}/messages`, { headers: DEMO, data: { text: "slack #mine my own" } })).ok()).toBe(true);

    await reviewer.page.setViewportSize({ width: 1440, height: 900 });
    const inbox = new ApprovalsPage(reviewer.page);
    await reviewer.page.goto(`/w/demo/approvals?agent=${handle}`);
    await expect(inbox.requests(handle)).toHaveCount(4, { timeout: 20_000 });
    const batch = reviewer.page.getByRole("group", { name: "Decide several at once" });

    // x ticks the request the keys are on.
    await inbox.row(handle, 0).click();
    await reviewer.page.keyboard.press("x");
    await expect(batch.getByTestId("batch-count")).toHaveText("1 request selected");
    await expect(inbox.requests(handle).nth(0).getByRole("checkbox")).toBeChecked();
    await reviewer.page.keyboard.press("x");
    await expect(batch.getByTestId("batch-count")).toHaveCount(0);

    await batch.getByRole("button", { name: new RegExp(`^Select all like this \\(4: Post to Slack by @${handle}\\)$`) }).click();
    await expect(batch.getByTestId("batch-count")).toHaveText("4 requests selected");
    await batch.getByRole("button", { name: "Approve 4" }).click();

    const outcome = reviewer.page.getByTestId("batch-outcome");
    await expect(outcome).toContainText("Approved 3 requests. 1 was not decided:");
    await expect(outcome).toContainText(`Post to Slack by @${handle}: This workspace requires someone else to approve actions taken on your behalf`);
    // Only the reviewer's own request is left, still waiting.
    await expect(inbox.requests(handle)).toHaveCount(1);
    await expect(inbox.row(handle, 0)).toContainText("#mine");

    // The owner sees the three approved in the history, by the reviewer, in the inbox.
    const decided = await (await page.request.get(`/api/approvals?status=decided&agent=${handle}`, { headers: DEMO })).json();
    expect((decided.approvals as { status: string; decidedBy: string }[]).map((a) => [a.status, a.decidedBy])).toEqual(Array(3).fill(["approved", reviewer.person.name]));
  } finally {
    await reviewer.context.close();
  }
});
