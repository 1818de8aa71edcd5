import { expect, type Locator, type Page } from "@playwright/test";

export const OFFLINE_LABEL = "Offline model — no network; follows a command grammar";

export class ChatPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/w/${slug}/chat`);
    await expect(this.page.getByRole("heading", { name: "Start a chat" })).toBeVisible();
  }

  /** Starts a chat with an agent from the picker and waits for the conversation. */
  async startWith(handle: string) {
    await this.page.getByRole("button", { name: new RegExp(`\\(@${handle}\\)$`) }).click();
    await expect(this.page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await expect(this.input()).toBeVisible();
  }

  offlineLabel() {
    return this.page.getByText(OFFLINE_LABEL, { exact: true });
  }

  input() {
    return this.page.getByLabel("Message", { exact: true });
  }

  sendButton() {
    return this.page.getByRole("button", { name: "Send", exact: true });
  }

  stopButton() {
    return this.page.getByRole("button", { name: "Stop", exact: true });
  }

  /** Types a message and presses Enter (the composer sends on Enter). */
  async send(text: string) {
    await expect(this.input()).toBeEditable();
    await this.input().fill(text);
    await this.input().press("Enter");
  }

  userMessages() {
    return this.page.getByRole("article", { name: "Your message" });
  }

  replies() {
    return this.page.getByRole("article", { name: /^Reply from / });
  }

  lastReply(): Locator {
    return this.replies().last();
  }

  step(reply: Locator, tool: string) {
    return reply.getByRole("group", { name: `Tool step ${tool}` });
  }

  stepStatus(step: Locator) {
    return step.getByTestId("step-status");
  }

  /** The reply's own text (its markdown), without the tool steps. */
  async replyText(reply: Locator): Promise<string> {
    const parts = await reply.getByTestId("reply-text").allInnerTexts();
    return parts.join("\n").trim();
  }

  /**
   * Samples a reply's text until it contains `final`; returns every distinct
   * value seen, so a test can check that the text arrived in pieces.
   */
  async watchReply(reply: Locator, final: string, timeoutMs = 20_000): Promise<string[]> {
    const seen: string[] = [];
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const text = await this.replyText(reply).catch(() => "");
      if (text && text !== seen[seen.length - 1]) seen.push(text);
      if (text.includes(final)) return seen;
      await this.page.waitForTimeout(15);
    }
    throw new Error(`The reply never contained ${JSON.stringify(final)}; last seen: ${JSON.stringify(seen[seen.length - 1] ?? "")}`);
  }

  async waitUntilIdle() {
    await expect(this.stopButton()).toHaveCount(0, { timeout: 20_000 });
    await expect(this.sendButton()).toBeVisible();
  }
}
