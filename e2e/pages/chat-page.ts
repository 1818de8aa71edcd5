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
   * Starts recording, in the page itself, every distinct text that the next
   * reply's markdown takes (the reply after those on screen now); call it
   * before sending, so no early render is missed however slow the test is.
   * `until(final)` waits for a text containing `final` and returns them all
   * in order, so a test can check that the text arrived in pieces. A mutation
   * observer sees each render; polling from the test would miss those between
   * two round trips. The reply is looked up again on each change: React may
   * replace its element when the stored history arrives.
   */
  async recordNextReply(): Promise<{ until(final: string, timeoutMs?: number): Promise<string[]> }> {
    const key = `__reply${Math.random().toString(36).slice(2)}`;
    await this.page.evaluate((key) => {
      const before = document.querySelectorAll('article[aria-label^="Reply from "]').length;
      const seen: string[] = [];
      const read = () => {
        const reply = document.querySelectorAll<HTMLElement>('article[aria-label^="Reply from "]')[before];
        if (!reply) return "";
        return Array.from(reply.querySelectorAll<HTMLElement>('[data-testid="reply-text"]'))
          .map((el) => el.innerText)
          .join("\n")
          .trim();
      };
      const sample = () => {
        const text = read();
        if (text && text !== seen[seen.length - 1]) seen.push(text);
      };
      new MutationObserver(sample).observe(document.body, { subtree: true, childList: true, characterData: true });
      (window as unknown as Record<string, string[]>)[key] = seen;
    }, key);
    return {
      until: async (final, timeoutMs = 20_000) => {
        const handle = await this.page.waitForFunction(
          ({ key, final }) => {
            const seen = (window as unknown as Record<string, string[]>)[key]!;
            return seen.length > 0 && seen[seen.length - 1]!.includes(final) ? seen : null;
          },
          { key, final },
          { timeout: timeoutMs },
        );
        return (await handle.jsonValue()) as string[];
      },
    };
  }

  /**
   * Presses Stop from inside the page as soon as the next reply's text is
   * longer than `chars`: a click from the test could land after a short reply
   * has finished on a slow machine. Call it before sending.
   */
  async stopNextReplyAfter(chars: number): Promise<void> {
    await this.page.evaluate((chars) => {
      const before = document.querySelectorAll('article[aria-label^="Reply from "]').length;
      const observer = new MutationObserver(() => {
        const reply = document.querySelectorAll<HTMLElement>('article[aria-label^="Reply from "]')[before];
        const text = reply ? Array.from(reply.querySelectorAll<HTMLElement>('[data-testid="reply-text"]'), (el) => el.innerText).join("").trim() : "";
        const stop = Array.from(document.querySelectorAll<HTMLButtonElement>("button")).find((b) => b.textContent?.trim() === "Stop" || b.getAttribute("aria-label") === "Stop");
        if (text.length > chars && stop) {
          observer.disconnect();
          stop.click();
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    }, chars);
  }

  async waitUntilIdle() {
    await expect(this.stopButton()).toHaveCount(0, { timeout: 20_000 });
    await expect(this.sendButton()).toBeVisible();
  }
}
