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

  /** The pending approval asked for by an agent, where its card is shown (every card on a phone; the selected one on a wide screen). */
  card(handle: string): Locator {
    return this.pending().getByRole("article", { name: new RegExp(`by @${handle}$`) });
  }

  /** The pending requests of an agent, one list item each, whichever way the list is drawn. */
  requests(handle: string): Locator {
    return this.pending().locator(`li[data-request-agent="${handle}"]`);
  }

  /** The line of a request in the list beside the detail pane (a wide screen only). */
  row(handle: string, index = 0): Locator {
    return this.requests(handle).nth(index).locator("[data-approval-row]");
  }

  /** The card of an agent's request, shown: on a wide screen its line is pressed first to show it beside the list. */
  async open(handle: string, index = 0, timeout?: number): Promise<Locator> {
    const item = this.requests(handle).nth(index);
    await expect(item).toHaveCount(1, { timeout });
    const row = item.locator("[data-approval-row]");
    if (await row.isVisible()) await row.click();
    const card = item.getByRole("article");
    await expect(card).toBeVisible();
    return card;
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
