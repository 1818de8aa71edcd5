import { expect, type Page } from "@playwright/test";

export class RunPage {
  constructor(private readonly page: Page) {}

  async waitLoaded(agentName: string) {
    await expect(this.page.getByRole("heading", { name: `Run of ${agentName}` })).toBeVisible();
  }

  step(tool: string) {
    return this.page.getByRole("group", { name: `Tool step ${tool}` });
  }

  /** The step a `#step-<id>` link pointed at. */
  anchoredStep() {
    return this.page.locator("[data-anchored]");
  }

  state() {
    return this.page.locator("header").getByTestId("run-state");
  }
}
