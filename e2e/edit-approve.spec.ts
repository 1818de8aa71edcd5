import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { agentAsked } from "./asked";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";


test("a reviewer edits a post in a form, checks the changes, approves, and the requester's chat shows what was sent", async ({ page, browser }) => {
  await new SignInPage(page).signInAs(OWNER);
  const {
    handle,
    sessionIds: [id],
  } = await agentAsked(page, "edit", ["slack #general first draft of the news"]);

  const reviewer = await personWithRole(browser, page, "reviewer");
  const reviewerName = reviewer.person.name;
  try {
    const inbox = new ApprovalsPage(reviewer.page);
    await inbox.goto("demo");
    const card = await inbox.open(handle, 0, 20_000);
    await card.getByRole("button", { name: "Edit, then approve…" }).click();
    // The form is made from the tool's schema: one field per input.
    await expect(card.getByLabel("Channel")).toHaveValue("#general");
    await expect(card.getByLabel("Text")).toHaveValue("first draft of the news");
    await card.getByLabel("Text").fill("the reviewed news, final");
    await card.getByRole("button", { name: "Review changes…" }).click();
    const diff = card.getByTestId("input-diff");
    await expect(diff.locator("del")).toHaveText("first draft of the news");
    await expect(diff.locator("ins")).toHaveText("the reviewed news, final");
    await expect(diff).not.toContainText("#general");
    await card.getByRole("button", { name: "Approve edited input" }).click();
    await expect(card).toHaveCount(0);
  } finally {
    await reviewer.context.close();
  }

  await page.goto(`/w/demo/chat/${id}`);
  const step = page.getByRole("group", { name: "Tool step slack.post" });
  // Who decided, when and where, and what they changed.
  const decided = step.getByTestId("approval-decided");
  await expect(decided).toContainText(`Approved by ${reviewerName}`, { timeout: 20_000 });
  await expect(decided).toContainText(/(ago|just now) in the inbox, with an edited input\./);
  await decided.getByText("What the reviewer changed").click();
  await expect(decided.getByTestId("input-diff").locator("del")).toHaveText("first draft of the news");
  await expect(decided.getByTestId("input-diff").locator("ins")).toHaveText("the reviewed news, final");
  await expect(step.getByTestId("step-status")).toHaveText("Succeeded");
  await expect(step).toContainText("the reviewed news, final");
  await step.getByText("Input", { exact: true }).click();
  await expect(step.locator("pre").first()).toContainText('"text": "the reviewed news, final"');
  await expect(step.locator("pre").first()).not.toContainText("first draft of the news");
});
