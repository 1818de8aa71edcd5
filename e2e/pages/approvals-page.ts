import { expect, type Locator, type Page } from "@playwright/test";

export class ApprovalsPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/approvals`);
    await expect(this.page.getByRole("heading", { name: "Approvals" })).toBeVisible();
  }

  pending() {
    return this.page.getByRole("region", { name: "Pending approvals" });
  }

  /** The pending approval asked for by an agent. */
  card(handle: string): Locator {
    return this.pending().getByRole("article", { name: new RegExp(`by @${handle}$`) });
  }

  async approve(card: Locator) {
    await card.getByRole("button", { name: "Approve", exact: true }).click();
  }

  async reject(card: Locator, reason: string) {
    await card.getByRole("button", { name: "Reject…" }).click();
    await card.getByLabel(/Reason for rejecting/).fill(reason);
    await card.getByRole("button", { name: "Confirm rejection" }).click();
  }

  badge() {
    return this.page.getByTestId("pending-approvals-badge");
  }

  async openHistory() {
    await this.page.getByRole("tab", { name: "History" }).click();
    return this.page.getByRole("region", { name: "Decided approvals" });
  }
}
