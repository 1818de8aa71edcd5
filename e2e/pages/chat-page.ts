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
   * Records, in the page itself, every distinct text the last reply's markdown
   * takes until it contains `final`, and returns them in order, so a test can
   * check that the text arrived in pieces. A mutation observer sees each
   * render; polling from the test would miss those between two round trips.
   * The last reply is looked up again on each change: React may replace its
   * element when the stored history arrives.
   */
  async watchLastReply(final: string, timeoutMs = 20_000): Promise<string[]> {
    await expect(this.lastReply()).toBeVisible();
    return this.page.evaluate(
      ({ final, timeoutMs }) =>
        new Promise<string[]>((resolve, reject) => {
          const seen: string[] = [];
          const read = () => {
            const replies = document.querySelectorAll<HTMLElement>('article[aria-label^="Reply from "]');
            const last = replies[replies.length - 1];
            if (!last) return "";
            return Array.from(last.querySelectorAll<HTMLElement>('[data-testid="reply-text"]'))
              .map((el) => el.innerText)
              .join("\n")
              .trim();
          };
          const observer = new MutationObserver(() => sample());
          const timer = setTimeout(() => {
            observer.disconnect();
            reject(new Error(`The reply never contained ${JSON.stringify(final)}; last seen: ${JSON.stringify(seen[seen.length - 1] ?? "")}`));
          }, timeoutMs);
          function sample() {
            const text = read();
            if (text && text !== seen[seen.length - 1]) seen.push(text);
            if (text.includes(final)) {
              observer.disconnect();
              clearTimeout(timer);
              resolve(seen);
            }
          }
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
          sample();
        }),
      { final, timeoutMs },
    );
  }

  async waitUntilIdle() {
    await expect(this.stopButton()).toHaveCount(0, { timeout: 20_000 });
    await expect(this.sendButton()).toBeVisible();
  }
}
