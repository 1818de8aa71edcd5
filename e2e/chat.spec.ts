import { expect, test } from "@playwright/test";
import { offlineGrammar } from "../lib/models/offline";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

/** Whitespace-insensitive, so markdown line breaks between pieces do not matter. */
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** Scout's tools in the demo workspace: its help answer lists their commands, and ends with the last one's. */
const SCOUT_TOOLS = ["http.fetch", "memory.remember", "memory.recall"];
const lastCommandOf = (tools: string[]) => offlineGrammar.filter((g) => tools.includes(g.tool)).at(-1)!.command;

test.describe("chat", () => {
  test("a member chats with the offline agent: tool steps, live text, the help answer, and a reload in the middle of a reply", async ({ page, browser }, testInfo) => {
    test.setTimeout(120_000);
    await new SignInPage(page).signInAs(OWNER);
    // An agent with every tool: the offline model's help lists the commands of the agent's own tools, and this long
    // answer is still being written when the page reloads.
    const tools = [...new Set(offlineGrammar.map((g) => g.tool))];
    const handle = `all${Date.now().toString(36)}`;
    const made = await page.request.post("/api/agents", { headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN }, data: { handle, name: "All tools", model: "offline", tools } });
    expect(made.status()).toBe(201);
    const commands = [...offlineGrammar];
    const { context, page: memberPage } = await personWithRole(browser, page, "member");
    try {
      await new AppShell(memberPage).nav().getByRole("link", { name: "Chat" }).click();
      const chat = new ChatPage(memberPage);
      await expect(memberPage.getByRole("heading", { name: "Start a chat" })).toBeVisible();
      await chat.startWith(handle);
      await expect(chat.offlineLabel()).toBeVisible();
      await expect(memberPage.getByRole("button", { name: "Use example: recall launch" })).toBeVisible();

      // 1. A command runs a tool; the text arrives in pieces, before and after the step.
      const streamRequests: string[] = [];
      memberPage.on("request", (request) => {
        if (/\/api\/runs\/[^/]+\/events/.test(request.url())) streamRequests.push(request.url());
      });
      const recording = await chat.recordNextReply();
      await chat.send("remember the demo is on Tuesday");
      await expect(chat.replies()).toHaveCount(1);
      const first = chat.lastReply();
      const seen = await recording.until("I'll remember");
      const final = squash(seen[seen.length - 1]!);
      // At least two renders: the text arrived in pieces (on a busy machine several pieces can share one render).
      expect(seen.length).toBeGreaterThan(1);
      expect(squash(seen[0]!).length).toBeGreaterThan(0);
      expect(squash(seen[0]!).length).toBeLessThan(final.length);
      for (const partial of seen) expect(final.startsWith(squash(partial))).toBe(true);
      const remember = chat.step(first, "memory.remember");
      await expect(remember).toBeVisible();
      await expect(chat.stepStatus(remember)).toHaveText("Succeeded");
      await chat.waitUntilIdle();
      // The step sits between the lead-in and the answer.
      await expect(first.getByTestId("reply-text")).toHaveCount(2);
      await expect(first.getByTestId("reply-text").first()).toHaveText("Noting that down.");
      // Tokens are shown to everyone; what they cost only to reviewers and up.
      await expect(first).toContainText("out tokens");
      await expect(first).not.toContainText("$");
      // The answer to the message carried its reply: no request of its own for the run's events.
      expect(streamRequests).toEqual([]);

      // 2. Recall finds it.
      await chat.send("recall demo");
      await expect(chat.replies()).toHaveCount(2);
      const second = chat.lastReply();
      const recall = chat.step(second, "memory.recall");
      await expect(recall).toBeVisible();
      await expect(chat.stepStatus(recall)).toHaveText("Succeeded");
      await expect(second.getByTestId("reply-text").last()).toContainText("the demo is on Tuesday");
      await chat.waitUntilIdle();

      // 3. A plain question gets the offline help: every command of the agent's tools, each once.
      await chat.send("How do you work?");
      await expect(chat.replies()).toHaveCount(3);
      const third = chat.lastReply();
      const lastCommand = commands[commands.length - 1]!.command;
      await expect(third).toContainText(lastCommand, { timeout: 20_000 });
      await chat.waitUntilIdle();
      await expect(memberPage.getByRole("list", { name: "Messages" }).getByText("I'm the offline model: I run without a network", { exact: false })).toHaveCount(1);
      await expect(third.getByRole("listitem")).toHaveCount(commands.length);
      for (const g of offlineGrammar) await expect(third.getByText(g.command, { exact: true })).toHaveCount(1);

      // 4. A reply long enough to outlast any reload (about two minutes at the test server's pace): reload while it streams.
      await chat.send("count to 1500");
      await expect(chat.replies()).toHaveCount(4);
      await expect(chat.stopButton()).toBeVisible();
      await expect.poll(async () => (await chat.replyText(chat.lastReply())).length, { timeout: 20_000, intervals: [20] }).toBeGreaterThan(20);
      const beforeReload = await chat.replyText(chat.lastReply());
      await memberPage.reload();

      // Reattached: the reply is still being written, and catches up from the journal (its events route).
      await expect(chat.replies()).toHaveCount(4);
      await expect(chat.stopButton()).toBeVisible();
      expect(streamRequests.some((url) => url.includes("after=0"))).toBe(true);
      await expect(chat.input()).toBeVisible();
      await memberPage.screenshot({ path: testInfo.outputPath("chat-mid-reply.png") });
      const counted = async () => (await chat.replyText(chat.lastReply())).match(/\d+/g)?.map(Number) ?? [];
      const afterReload = (await counted()).length;
      await expect.poll(async () => (await counted()).length, { timeout: 20_000 }).toBeGreaterThan(afterReload + 5);
      await chat.stopButton().click();
      await expect(chat.lastReply().getByTestId("reply-cancelled")).toBeVisible();
      await chat.waitUntilIdle();

      // Exactly once: the numbers run from 1 without a gap or a repeat, past what was there before the reload.
      const numbers = await counted();
      expect(numbers.length).toBeGreaterThan(beforeReload.split(",").length);
      expect(numbers.length).toBeLessThan(1500);
      // (The stop may land inside a number: the last one is the start of the next, "23" of "235".)
      expect(numbers.slice(0, -1)).toEqual(numbers.slice(0, -1).map((_, i) => i + 1));
      expect(String(numbers.length).startsWith(String(numbers.at(-1)))).toBe(true);
      expect(squash(await chat.replyText(chat.lastReply())).startsWith(squash(beforeReload))).toBe(true);
      await expect(chat.replies()).toHaveCount(4);
      await expect(chat.userMessages()).toHaveCount(4);

      // The history from before the reload is all there, steps included.
      await expect(chat.userMessages()).toHaveText(["remember the demo is on Tuesday", "recall demo", "How do you work?", "count to 1500"]);
      await expect(chat.stepStatus(chat.step(chat.replies().nth(0), "memory.remember"))).toHaveText("Succeeded");
      await expect(chat.stepStatus(chat.step(chat.replies().nth(1), "memory.recall"))).toHaveText("Succeeded");
      await expect(chat.replies().nth(1).getByTestId("reply-text").last()).toContainText("the demo is on Tuesday");
      await expect(chat.replies().nth(0).getByTestId("reply-text").first()).toHaveText("Noting that down.");

      // The chat is listed on the left, named after its first message.
      await expect(memberPage.getByRole("navigation", { name: "Chats" }).getByRole("link", { name: /remember the demo is on Tuesday/ })).toHaveCount(1);
    } finally {
      await context.close();
    }
  });

  test("a chat open in two tabs: a message sent from one shows in the other, which follows its reply live", async ({ page, browser }) => {
    test.setTimeout(90_000);
    await new SignInPage(page).signInAs(OWNER);
    // A person of their own: what the agent remembers of this chat is theirs, and no other test meets it.
    const { context, page: tab } = await personWithRole(browser, page, "member");
    try {
      const chat = new ChatPage(tab);
      await chat.goto("demo");
      await chat.startWith("scout");
      const otherTab = await context.newPage();
      await otherTab.goto(tab.url());
      const other = new ChatPage(otherTab);
      await expect(other.input()).toBeVisible();
      await expect(other.userMessages()).toHaveCount(0);

      const lastCommand = lastCommandOf(SCOUT_TOOLS);
      const recording = await other.recordNextReply();
      await chat.send("How do you work?");
      // Neither tab was focused again nor reloaded: the other one was told, and follows the reply as it is written.
      await expect(other.userMessages()).toHaveText(["How do you work?"]);
      const seen = await recording.until(lastCommand, 30_000);
      expect(seen.length).toBeGreaterThan(1);
      await chat.waitUntilIdle();
      await other.waitUntilIdle();
      expect(squash(await other.replyText(other.lastReply()))).toBe(squash(await chat.replyText(chat.lastReply())));
      // The chat list of the other tab names the chat after its first message.
      const otherList = otherTab.getByRole("navigation", { name: "Chats" });
      await expect(otherList.getByRole("link", { name: /How do you work\?/ })).toHaveCount(1);

      // Deleted in one tab: the other says so instead of offering a chat that is gone, and lists it no more.
      await tab.getByRole("button", { name: "Delete chat" }).click();
      await tab.getByRole("alertdialog", { name: "Delete this chat?" }).getByRole("button", { name: "Delete chat" }).click();
      await expect(tab).toHaveURL(/\/w\/demo\/chat$/);
      await expect(otherTab.getByRole("alert").getByRole("heading", { name: "This chat cannot be opened" })).toBeVisible();
      await expect(other.input()).toHaveCount(0);
      await expect(otherList.getByRole("link", { name: /How do you work\?/ })).toHaveCount(0);
    } finally {
      await context.close();
    }
  });

  test("Shift+Enter makes a new line, Enter sends, and Stop cancels a reply", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith("scout");
    await page.getByRole("button", { name: "Use example: recall launch" }).click();
    await expect(chat.input()).toHaveValue("recall launch");

    await chat.input().fill("first line");
    await chat.input().press("Shift+Enter");
    await chat.input().pressSequentially("second line");
    await expect(chat.input()).toHaveValue("first line\nsecond line");
    await chat.stopNextReplyAfter(10);
    await chat.input().press("Enter");
    await expect(chat.userMessages().last()).toHaveText("first line\nsecond line");
    await expect(chat.input()).toHaveValue("");

    // While the reply streams, Stop stands in for Send; it is pressed once the reply has begun
    // (from inside the page, so it lands mid-reply).
    await expect(chat.lastReply().getByTestId("reply-cancelled")).toBeVisible();
    await chat.waitUntilIdle();
    // The reply says who stopped it.
    await expect(chat.lastReply().getByTestId("reply-cancelled")).toContainText(`Stopped by ${OWNER.name}.`);
    await expect(chat.lastReply()).not.toContainText("recall <query>");
    await expect(chat.input()).toBeEditable();

    // The cancelled reply keeps what was written, after a reload too.
    await page.reload();
    await expect(chat.replies()).toHaveCount(1);
    await expect(chat.lastReply().getByTestId("reply-cancelled")).toBeVisible();
    await expect(chat.lastReply().getByTestId("reply-text")).toContainText("I'm the");
  });
});

test.describe("message actions and the spoken reply", () => {
  test("Copy puts a message on the clipboard, Retry sends the same words again, and the finished reply is announced once", async ({ page, context }) => {
    test.setTimeout(120_000);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await new SignInPage(page).signInAs(OWNER);
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith("scout");
    const announcer = page.getByTestId("reply-announcer");
    await expect(announcer).toHaveAttribute("aria-live", "polite");

    // Every value the live region takes is recorded: it stays quiet while the reply streams, then holds the whole reply, once.
    await page.evaluate(() => {
      const region = document.querySelector('[data-testid="reply-announcer"]')!;
      const spoken: string[] = [];
      (window as unknown as { spoken: string[] }).spoken = spoken;
      new MutationObserver(() => spoken.push(region.textContent ?? "")).observe(region, { childList: true, characterData: true, subtree: true });
    });
    await chat.send("How do you work?");
    await chat.waitUntilIdle();
    const lastCommand = lastCommandOf(SCOUT_TOOLS);
    await expect(announcer).toContainText(lastCommand);
    const spoken = (await page.evaluate(() => (window as unknown as { spoken: string[] }).spoken)).filter((text) => text !== "");
    expect(spoken).toHaveLength(1);
    expect(spoken[0]!.startsWith("Scout replied: I'm the offline model")).toBe(true);
    expect(spoken[0]!.split("I'm the offline model").length - 1).toBe(1);
    expect(spoken[0]!.split(lastCommand).length - 1).toBe(1);

    // Copy, from the keyboard: the message's words on the clipboard and a toast.
    const message = chat.userMessages().last();
    const copy = message.getByRole("button", { name: "Copy message" });
    await expect(copy).toBeVisible();
    await copy.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByText("Message copied")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("How do you work?");
    await chat.lastReply().getByRole("button", { name: "Copy reply" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(lastCommand);

    // Retry: the same words as a new message, and a second reply.
    await chat.lastReply().getByRole("button", { name: "Retry: send your message again" }).click();
    await expect(chat.userMessages()).toHaveText(["How do you work?", "How do you work?"]);
    await expect(chat.replies()).toHaveCount(2);
    await chat.waitUntilIdle();
    await expect(chat.lastReply()).toContainText(lastCommand);
    await expect(message.getByRole("button", { name: "Send this message again" })).toBeEnabled();

    // ↑ in the empty composer still brings back the last message.
    await chat.input().focus();
    await page.keyboard.press("ArrowUp");
    await expect(chat.input()).toHaveValue("How do you work?");
  });
});
