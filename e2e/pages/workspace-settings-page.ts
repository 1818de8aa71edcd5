import { expect, type Page } from "@playwright/test";

/** Settings → Workspace: its name, and the time zone every date of the workspace is shown in. */
export class WorkspaceSettingsPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/settings/workspace`);
    await expect(this.page.getByRole("heading", { name: "Workspace", exact: true })).toBeVisible();
  }

  zone() {
    return this.page.getByRole("combobox", { name: "Time zone" });
  }

  async setZone(zone: string) {
    await this.zone().fill(zone);
    await this.page.getByRole("button", { name: "Save time zone" }).click();
    await expect(this.page.getByRole("region", { name: /^Notifications/ }).getByText(`Times are now shown in ${zone}.`)).toBeVisible();
  }

  async rename(name: string) {
    await this.page.getByRole("textbox", { name: "Name", exact: true }).fill(name);
    await this.page.getByRole("button", { name: "Save name" }).click();
    await expect(this.page.getByRole("region", { name: /^Notifications/ }).getByText(`The workspace is now called ${name}.`)).toBeVisible();
  }
}
