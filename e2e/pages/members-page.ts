import { expect, type Page } from "@playwright/test";
import { InvitePage } from "./invite-page";

export class MembersPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/settings/members`);
  }

  inviteForm() {
    return this.page.getByRole("form", { name: "Invite someone" });
  }

  /** Invites an email with a role and returns the link, which the page shows once. */
  async invite(email: string, role: string): Promise<string> {
    const form = this.inviteForm();
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Role").selectOption(role);
    await form.getByRole("button", { name: "Create invitation link" }).click();
    const link = this.page.getByLabel("Invitation link");
    await expect(link).toHaveValue(/\/invite\/[A-Za-z0-9_-]{32,}$/);
    return link.inputValue();
  }

  /** Copies the shown link with the Copy button and returns what the clipboard holds. */
  async copyLink(): Promise<string> {
    await this.page.getByRole("button", { name: "Copy link" }).click();
    await expect(this.page.getByRole("button", { name: "Copied" })).toBeVisible();
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  /**
   * Adds a person the way people join: an invitation, accepted in a
   * separate browser where they choose their own password.
   */
  async add(person: { email: string; name: string; password: string; role: string }) {
    const url = await this.invite(person.email, person.role);
    const browser = this.page.context().browser();
    if (!browser) throw new Error("No browser to accept the invitation in");
    const context = await browser.newContext();
    try {
      const invitee = await context.newPage();
      await invitee.goto(url);
      await new InvitePage(invitee).createAccount(person.name, person.password);
    } finally {
      await context.close();
    }
    await this.page.reload();
    await expect(this.row(person.email)).toBeVisible();
  }

  row(email: string) {
    return this.page.getByTestId(`member-${email}`);
  }

  pending(email: string) {
    return this.page.getByTestId(`invitation-${email}`);
  }
}
