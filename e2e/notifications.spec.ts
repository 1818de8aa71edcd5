import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { agentAsked } from "./asked";
import { mailTo } from "./mailbox";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

test("a reviewer is emailed when a request waits; the link opens its card, which says who was told, and one tap decides", async ({ page, browser }) => {
  test.setTimeout(150_000);
  await new SignInPage(page).signInAs(OWNER);
  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    // Their choices: email is on by default on a server with a mail server; the escalation rule is said in words.
    await reviewer.page.goto("/w/demo/settings/notifications");
    const form = reviewer.page.getByRole("form", { name: "Your notifications" });
    await expect(form.getByRole("checkbox", { name: /^Email/ })).toBeChecked();
    await expect(form.getByRole("radio", { name: "One email for each request, as it is asked" })).toBeChecked();
    await expect(reviewer.page.getByRole("form", { name: "Passing requests on" })).toContainText(
      "If nobody has decided it after 15 minutes, the managers are told; if still nobody has after 30 minutes, the owners.",
    );
    await expect(reviewer.page.getByRole("spinbutton")).toHaveCount(0);

    const { handle } = await agentAsked(page, "mailed", ["slack #launch the rocket is ready"]);
    const mail = await mailTo(reviewer.person.email, new RegExp(`^Waiting for you: @${handle} asks to post to Slack \\(Demo\\)$`));
    expect(mail.text).toContain("Channel: #launch");
    expect(mail.text).toContain(`Asked by @${handle} for Owner`);
    expect(mail.text).toContain("The link only opens the request; nothing is decided until you choose in Clawdeck, signed in.");
    const link = mail.text.split("\n").find((line) => /\/w\/demo\/approvals\?approval=[0-9a-f-]{36}$/.test(line));
    expect(link).toBeTruthy();

    // The link opens that request's card (it decides nothing by itself): the card names who was told, and how.
    const url = new URL(link!);
    await reviewer.page.goto(`${url.pathname}${url.search}`);
    const inbox = new ApprovalsPage(reviewer.page);
    const card = inbox.card(handle);
    await expect(card).toHaveAttribute("aria-current", "true");
    await expect(card.getByTestId("approval-notified")).toContainText(`${reviewer.person.name} by email, when it was asked`);
    await inbox.approve(card);
    await expect(reviewer.page.getByRole("region", { name: /^Notifications/ })).toContainText("Approved: Post to Slack");

    await reviewer.page.goto("/w/demo/settings/notifications");
    const sent = reviewer.page.getByRole("region", { name: "Sent to you lately" }).getByTestId("delivery").filter({ hasText: `@${handle}` });
    await expect(sent).toContainText("Sent");
    await expect(sent).toContainText("by email, when it was asked");
  } finally {
    await reviewer.context.close();
  }
});

test("a person's choices are kept: a digest, quiet hours in another zone, only some kinds of action", async ({ page, browser }) => {
  await new SignInPage(page).signInAs(OWNER);
  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    await reviewer.page.goto("/w/demo/settings/notifications");
    const form = reviewer.page.getByRole("form", { name: "Your notifications" });
    await form.getByRole("radio", { name: /One digest of what arrived/ }).check();
    await form.getByLabel("Digest every").selectOption("60");
    await form.getByRole("checkbox", { name: /Send nothing at night/ }).check();
    await form.getByLabel("From", { exact: true }).fill("21:30");
    await form.getByLabel("In the time zone").selectOption("Asia/Tokyo");
    await form.getByRole("checkbox", { name: "Only some kinds of action" }).check();
    await form.getByRole("checkbox", { name: "Sends outside" }).check();
    await form.getByRole("button", { name: "Save" }).click();
    await expect(reviewer.page.getByRole("region", { name: /^Notifications/ })).toContainText("Your notification choices are saved.");

    await reviewer.page.reload();
    await expect(form.getByLabel("Digest every")).toHaveValue("60");
    await expect(form.getByLabel("From", { exact: true })).toHaveValue("21:30");
    await expect(form.getByLabel("To", { exact: true })).toHaveValue("07:00");
    await expect(form.getByLabel("In the time zone")).toHaveValue("Asia/Tokyo");
    await expect(form.getByRole("checkbox", { name: "Sends outside" })).toBeChecked();
    await expect(form.getByRole("checkbox", { name: "Runs code" })).not.toBeChecked();
  } finally {
    await reviewer.context.close();
  }
});
