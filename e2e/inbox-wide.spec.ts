import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { agentAsked } from "./asked";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

test("on a wide screen the inbox is a list of one-line requests beside the selected one's card, driven by pointer and keys", async ({ page, browser }, testInfo) => {
  test.setTimeout(120_000);
  await new SignInPage(page).signInAs(OWNER);
  const channels = ["#general", "#ops", "#random"];
  const { handle } = await agentAsked(page, "wide", channels.map((c, i) => `slack ${c} post number ${i + 1}`));

  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    await reviewer.page.setViewportSize({ width: 1440, height: 900 });
    const inbox = new ApprovalsPage(reviewer.page);
    await reviewer.page.goto(`/w/demo/approvals?agent=${handle}`);
    await expect(inbox.requests(handle)).toHaveCount(3, { timeout: 20_000 });

    // One line each, in a column left of the one card shown.
    const rows = [0, 1, 2].map((i) => inbox.row(handle, i));
    for (const row of rows) {
      await expect(row).toBeVisible();
      await expect(row).toContainText("slack.post");
      await expect(row).toContainText(`@${handle}`);
      await expect(row).toContainText("Sends outside");
      await expect(row).toContainText(/min left/);
      expect((await row.boundingBox())!.height).toBeLessThan(64);
    }
    const shown = inbox.pending().getByRole("article");
    await expect(shown).toHaveCount(1);
    const listBox = (await rows[0]!.boundingBox())!;
    const cardBox = (await shown.boundingBox())!;
    expect(listBox.x + listBox.width).toBeLessThanOrEqual(cardBox.x);
    // The first request is selected at the start; its card is the one shown.
    await expect(rows[0]!).toHaveAttribute("aria-current", "true");
    const channelOf = async (i: number) => {
      const line = await rows[i]!.innerText();
      const channel = channels.find((c) => line.includes(c));
      expect(channel, `the line names its channel: ${line}`).toBeTruthy();
      return channel!;
    };
    await expect(shown.getByTestId("approval-preview")).toContainText(await channelOf(0));
    await testInfo.attach("inbox-wide.png", { body: await reviewer.page.screenshot(), contentType: "image/png" });

    // Pressing a line shows its card.
    await rows[2]!.click();
    await expect(rows[2]!).toHaveAttribute("aria-current", "true");
    await expect(rows[0]!).not.toHaveAttribute("aria-current", "true");
    await expect(shown.getByTestId("approval-preview")).toContainText(await channelOf(2));

    // k moves up the list (the line takes the focus, its card is shown), a approves the card shown.
    await reviewer.page.keyboard.press("k");
    await expect(rows[1]!).toBeFocused();
    await expect(rows[1]!).toHaveAttribute("aria-current", "true");
    const secondChannel = await channelOf(1);
    await expect(shown.getByTestId("approval-preview")).toContainText(secondChannel);
    await reviewer.page.keyboard.press("a");
    await expect(reviewer.page.getByRole("region", { name: /^Notifications/ })).toContainText("Approved: Post to Slack");
    await expect(inbox.requests(handle)).toHaveCount(2);
    await expect(inbox.pending()).not.toContainText(secondChannel);
    // The next request's card takes the pane.
    await expect(inbox.pending().getByRole("article")).toHaveCount(1);

    // j then o opens the conversation of the selected request, read-only for the reviewer.
    await reviewer.page.keyboard.press("j");
    await expect(inbox.row(handle, 1)).toBeFocused();
    await reviewer.page.keyboard.press("o");
    await expect(reviewer.page).toHaveURL(/\/chat\//);
    await expect(reviewer.page.getByRole("heading", { level: 1, name: "Owner’s chat with wide" })).toBeVisible();
  } finally {
    await reviewer.context.close();
  }
});
