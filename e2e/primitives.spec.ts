import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { MembersPage } from "./pages/members-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

test("removing a member asks first: Cancel keeps them, Remove takes them out", async ({ page, browser }) => {
  await new SignInPage(page).signInAs(OWNER);
  const { person, context } = await personWithRole(browser, page, "member");
  await context.close();
  const members = new MembersPage(page);
  await members.goto("demo");
  const row = members.row(person.email);
  await row.getByRole("button", { name: "Remove" }).click();

  const ask = page.getByRole("alertdialog", { name: `Remove ${person.name}?` });
  await expect(ask).toContainText(person.email);
  // The safe choice has the focus, so Enter never removes by accident.
  await expect(ask.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(ask).toBeHidden();
  await page.reload();
  await expect(row).toBeVisible();

  await row.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Remove" }).click();
  await expect(row).toHaveCount(0);
  await page.reload();
  await expect(members.row(OWNER.email)).toBeVisible();
  await expect(row).toHaveCount(0);
});

test("the inbox tabs have panels and move with the arrow keys", async ({ page }) => {
  await new SignInPage(page).signInAs(OWNER);
  await page.goto("/w/demo/approvals");
  const pending = page.getByRole("tab", { name: "Pending" });
  await expect(pending).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel", { name: "Pending" })).toContainText(/waiting for a decision/);
  await pending.focus();
  await page.keyboard.press("ArrowRight");
  const history = page.getByRole("tab", { name: "History" });
  await expect(history).toBeFocused();
  await expect(history).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel", { name: "History" }).getByRole("region", { name: "Decided approvals" })).toBeVisible();
});

test("a page a role may not open answers 403 with a sentence, the code small beneath; an unknown workspace answers 404", async ({ page, browser }) => {
  await new SignInPage(page).signInAs(OWNER);
  const { page: memberPage, context } = await personWithRole(browser, page, "member");
  try {
    for (const [path, code] of [
      ["/w/demo/usage", "forbidden:usage"],
      ["/w/demo/settings/members", "forbidden:members"],
      ["/w/demo/settings/billing", "forbidden:billing"],
      ["/w/demo/settings/connections", "forbidden:connections"],
    ] as const) {
      const response = await memberPage.goto(path);
      expect({ path, status: response?.status() }).toEqual({ path, status: 403 });
      const denied = memberPage.getByRole("alert").filter({ hasText: "You don't have access to this page" });
      await expect(denied).toContainText(code);
      // Still inside the app: the navigation is there to go elsewhere.
      await expect(memberPage.getByRole("navigation", { name: "Main" })).toBeVisible();
    }
    const missing = await memberPage.goto("/w/no-such-workspace-here");
    expect(missing?.status()).toBe(404);
  } finally {
    await context.close();
  }
});
