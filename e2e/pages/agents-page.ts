import { expect, type Locator, type Page } from "@playwright/test";

export interface AgentFields {
  name: string;
  handle: string;
  model: string;
  systemPrompt?: string;
  tools?: string[];
}

export class AgentsPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/agents`);
    await expect(this.page.getByRole("heading", { name: "Agents", exact: true })).toBeVisible();
  }

  newButton() {
    return this.page.getByRole("button", { name: "New agent" });
  }

  form(): Locator {
    return this.page.getByRole("form", { name: /^(New|Edit) agent$/ });
  }

  async openNew() {
    await this.newButton().click();
    await expect(this.form()).toBeVisible();
  }

  async fill(fields: AgentFields) {
    const form = this.form();
    await form.getByLabel("Name").fill(fields.name);
    await form.getByLabel("Handle").fill(fields.handle);
    if (fields.systemPrompt !== undefined) await form.getByLabel("System prompt").fill(fields.systemPrompt);
    await form.getByLabel("Model").fill(fields.model);
    for (const tool of fields.tools ?? []) await form.getByRole("checkbox", { name: tool, exact: true }).check();
  }

  async save() {
    await this.form().getByRole("button", { name: /^(Create agent|Save changes)$/ }).click();
  }

  modelError() {
    return this.form().getByTestId("agent-model-error");
  }

  card(handle: string): Locator {
    return this.page.getByRole("article", { name: `Agent @${handle}` });
  }
}

/** One agent's page. */
export class AgentPage {
  constructor(private readonly page: Page) {}

  heading(name: string) {
    return this.page.getByRole("heading", { name, level: 1 });
  }

  status() {
    return this.page.getByTestId("agent-status");
  }

  tools() {
    return this.page.getByTestId("agent-tools");
  }

  async pause() {
    await this.page.getByRole("button", { name: "Pause", exact: true }).click();
  }

  async resume() {
    await this.page.getByRole("button", { name: "Resume", exact: true }).click();
  }
}
