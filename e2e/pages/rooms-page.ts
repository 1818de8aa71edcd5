import { expect, type Page } from "@playwright/test";

export class RoomsPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/rooms`);
    await expect(this.page.getByRole("heading", { name: "Rooms", exact: true })).toBeVisible();
  }

  /** Creates a room from the form and waits for its page. */
  async create(room: { name: string; subject: string; members: string[] }) {
    await this.page.getByRole("button", { name: "New room" }).click();
    const form = this.page.getByRole("form", { name: "New room" });
    await form.getByLabel("Room name").fill(room.name);
    await form.getByLabel("Subject").fill(room.subject);
    for (const handle of room.members) await form.getByRole("checkbox", { name: `@${handle}`, exact: true }).check();
    await form.getByRole("button", { name: "Create room" }).click();
    await expect(this.page).toHaveURL(/\/rooms\/[0-9a-f-]{36}$/);
    await expect(this.page.getByRole("heading", { name: `#${room.name}` })).toBeVisible();
  }
}

/** One room's page. */
export class RoomPage {
  constructor(private readonly page: Page) {}

  messages() {
    return this.page.getByRole("list", { name: "Room messages" });
  }

  /** Messages from an agent (`@handle`) or a person (their name). */
  from(who: string) {
    return this.messages().getByRole("article", { name: `Message from ${who}`, exact: true });
  }

  members() {
    return this.page.getByRole("complementary", { name: "Members" });
  }

  async post(text: string) {
    const input = this.page.getByLabel("Message", { exact: true });
    await input.fill(text);
    await input.press("Enter");
  }
}
