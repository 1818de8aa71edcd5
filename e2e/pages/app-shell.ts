import { expect, type Page } from "@playwright/test";

export class AppShell {
  constructor(private readonly page: Page) {}

  nav() {
    return this.page.getByRole("navigation", { name: "Main" });
  }

  async signOut() {
    await this.page.getByRole("button", { name: "Sign out" }).click();
    await expect(this.page).toHaveURL(/\/sign-in/);
  }

  currentUser() {
    return this.page.getByTestId("current-user");
  }

  switcher() {
    return this.page.getByLabel("Workspace", { exact: true });
  }

  async createWorkspace(name: string) {
    await this.switcher().selectOption("__new");
    await this.page.getByLabel("New workspace name").fill(name);
    await this.page.getByRole("button", { name: "Create", exact: true }).click();
  }
}
