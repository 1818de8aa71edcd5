import { expect, type Page } from "@playwright/test";

export class MembersPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/settings/members`);
  }

  async add(person: { email: string; name: string; password: string; role: string }) {
    const form = this.page.getByRole("form", { name: "Add a member" });
    await form.getByLabel("Email").fill(person.email);
    await form.getByLabel("Name").fill(person.name);
    await form.getByLabel("Initial password").fill(person.password);
    await form.getByLabel("Role").selectOption(person.role);
    await form.getByRole("button", { name: "Add member" }).click();
    await expect(this.row(person.email)).toBeVisible();
  }

  row(email: string) {
    return this.page.getByTestId(`member-${email}`);
  }
}
