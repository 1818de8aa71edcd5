import { expect, type Locator, type Page } from "@playwright/test";

/** The overview's SPEND, ACTIVITY and THROUGHPUT cards. */
export class OverviewCards {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}`);
    await expect(this.activityCard()).toBeVisible();
  }

  spendCard(): Locator {
    return this.page.getByRole("article", { name: "Spend" });
  }

  spendToday(): Locator {
    return this.spendCard().getByTestId("spend-today");
  }

  activityCard(): Locator {
    return this.page.getByRole("article", { name: "Activity" });
  }

  throughputCard(): Locator {
    return this.page.getByRole("article", { name: "Throughput" });
  }

  runsToday(): Locator {
    return this.activityCard().getByTestId("activity-runs");
  }

  budgetBanner(): Locator {
    return this.page.getByTestId("budget-banner");
  }

  budgetStops(): Locator {
    return this.activityCard().getByTestId("budget-stops");
  }
}

/** Usage: range presets, grouping, charts, the totals table and its CSV export. */
export class UsagePage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/usage`);
    await expect(this.page.getByRole("heading", { name: "Usage", exact: true })).toBeVisible();
  }

  async choose(preset: "Today" | "7 days" | "30 days" | "This month" | "Custom") {
    await this.page.getByRole("group", { name: "Range" }).getByRole("button", { name: preset, exact: true }).click();
  }

  async groupBy(group: "Agent" | "Model" | "Source" | "Mission" | "Person") {
    await this.page.getByLabel("Group by").selectOption({ label: group });
    await expect(this.table().locator("thead")).toContainText(group);
  }

  table(): Locator {
    return this.page.getByTestId("usage-table");
  }

  rows(): Locator {
    return this.table().getByTestId("usage-row");
  }

  /** The exact credits of the total row (the cell shows dollars; its data attribute keeps the integer). */
  async totalCredits(): Promise<number> {
    return Number(await this.table().getByTestId("usage-total").locator("[data-credits]").getAttribute("data-credits"));
  }

  async rowCredits(): Promise<number[]> {
    const cells = this.rows().locator("[data-credits]");
    return (await cells.evaluateAll((els) => els.map((el) => el.getAttribute("data-credits")))).map(Number);
  }

  /** Clicks Export CSV and returns the downloaded file's text. */
  async exportCsv(): Promise<string> {
    const [download] = await Promise.all([this.page.waitForEvent("download"), this.page.getByRole("link", { name: "Export CSV" }).click()]);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  chart(name: "Spend over time" | "Tokens over time"): Locator {
    return this.page.getByRole("region", { name });
  }
}

/** Settings → Billing: budgets, prices, reconciliation findings. */
export class BillingPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/settings/billing`);
    await expect(this.page.getByRole("heading", { name: "Billing", exact: true })).toBeVisible();
  }

  agentBudget(handle: string): Locator {
    return this.page.getByLabel(`Monthly budget of @${handle} in US dollars`);
  }

  async setAgentBudget(handle: string, usd: string) {
    await this.agentBudget(handle).fill(usd);
    await this.page.getByRole("button", { name: "Save budgets" }).click();
    await expect(this.page.getByRole("region", { name: /^Notifications/ }).getByText("Budgets saved")).toBeVisible();
  }

  budgetRow(handle: string): Locator {
    return this.page.getByTestId(`budget-${handle}`);
  }
}
