import { expect, type Page } from "@playwright/test";

/** The missions list and the crew editor. */
export class MissionsPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/missions`);
    await expect(this.page.getByRole("heading", { name: "Missions", exact: true })).toBeVisible();
  }

  /** Builds a crew from a template in the editor, binding nodes (by their label on the canvas) to agents, and saves it. */
  async buildCrew(crew: { name: string; template: string; bind: Record<string, string> }) {
    await this.page.getByRole("link", { name: "New crew" }).click();
    await expect(this.page.getByRole("heading", { name: "New crew" })).toBeVisible();
    await this.page.getByLabel("Name", { exact: true }).fill(crew.name);
    await this.page.getByLabel("Template").selectOption({ label: crew.template });
    await this.page.getByRole("button", { name: "Use template" }).click();
    const canvas = this.page.getByRole("region", { name: "Crew canvas" });
    for (const [role, handle] of Object.entries(crew.bind)) {
      await canvas.getByText(role, { exact: true }).click();
      const panel = this.page.getByRole("complementary", { name: "Selected node" });
      await panel.getByLabel("Agent").selectOption({ label: `@${handle}` });
      await expect(canvas.getByText(role, { exact: true }).locator("..")).toContainText(`@${handle}`);
    }
    await this.page.getByRole("button", { name: "Save crew" }).click();
    await expect(this.page).toHaveURL(/\/missions$/);
  }

  /** Starts a mission with a crew from its card and waits for the mission page. */
  async start(crewName: string, goal: string) {
    const card = this.page.getByRole("article", { name: `Crew ${crewName}` });
    await card.getByLabel("Goal").fill(goal);
    await card.getByRole("button", { name: "Start mission" }).click();
    await expect(this.page).toHaveURL(/\/missions\/[0-9a-f-]{36}$/);
  }

  node(id: string) {
    return this.page.getByRole("list", { name: "Nodes" }).locator(`[data-node="${id}"]`);
  }

  state() {
    return this.page.getByTestId("mission-state");
  }

  result() {
    return this.page.getByTestId("mission-result");
  }
}
