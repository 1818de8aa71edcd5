import { expect, type Page } from "@playwright/test";

/** The page an invitation link opens. */
export class InvitePage {
  constructor(private readonly page: Page) {}

  heading() {
    return this.page.getByRole("heading", { level: 1 });
  }

  /** A new person chooses a name and password, and lands in the workspace. */
  async createAccount(name: string, password: string) {
    const form = this.page.getByRole("form", { name: "Create your account" });
    await form.getByLabel("Your name").fill(name);
    await form.getByLabel("Choose a password").fill(password);
    await form.getByRole("button", { name: "Create account and join" }).click();
    await expect(this.page).toHaveURL(/\/w\/[a-z0-9-]+$/);
  }

  /** A signed-in person joins with their account. */
  async join(workspaceName: string) {
    await this.page.getByRole("button", { name: `Join ${workspaceName}` }).click();
    await expect(this.page).toHaveURL(/\/w\/[a-z0-9-]+$/);
  }

  problem() {
    return this.page.getByRole("main").getByRole("alert");
  }
}
