import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { personWithRole } from "./people";
import { ChatPage } from "./pages/chat-page";
import { horizontalOverflow } from "./pages/main-pages";
import { SignInPage } from "./pages/sign-in-page";

/** A script that prints as it goes and leaves a file named for this run (a retry of the test writes a new one). */
const script = (tag: string) =>
  ["write count.py", "import time", "for i in range(4):", "    print('tick', i, flush=True)", "    time.sleep(0.5)", `open('ticks-${tag}.txt', 'w').write('4 ticks\\n')`].join("\n");

test.describe("an agent's computer", () => {
  test("a person asks @forge to write and run a script, watches its output live, then opens the files it left and their history", async ({ page }) => {
    // Four chat turns, the agent's page, two themes and a phone: more than the default minute on a busy machine.
    test.setTimeout(120_000);
    await new SignInPage(page).signInAs(OWNER);
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith("forge");

    const tag = Date.now().toString(36);
    await chat.send(script(tag));
    const wrote = chat.step(chat.lastReply(), "files.write");
    await expect(chat.stepStatus(wrote)).toHaveText("Succeeded");
    // The step links to the file it wrote, at that version.
    await expect(wrote.getByTestId("file-chip")).toContainText(/count\.py\s*version \d+/);
    await chat.waitUntilIdle();

    await chat.send("run python3 count.py");
    const terminal = chat.step(chat.lastReply(), "shell.exec").getByTestId("terminal");
    await expect(terminal).toContainText("$ python3 count.py");
    // The output arrives while the command runs: the first tick shows before the command has ended.
    await expect(terminal).toContainText("tick 0");
    await expect(terminal.getByTestId("terminal-ending")).toHaveCount(0);
    await expect(terminal).toContainText("tick 3");
    await expect(terminal.getByTestId("terminal-ending")).toContainText("Exit code 0");
    await expect(terminal.getByTestId("terminal-ending")).toContainText(`ticks-${tag}.txt added (+1 −0)`);
    await chat.waitUntilIdle();
    // A second version of the script, to see what changed.
    await chat.send(`run echo "# ran ${tag}" >> count.py`);
    await expect(chat.step(chat.lastReply(), "shell.exec").getByTestId("terminal-ending")).toContainText("count.py changed (+1 −0)");
    await chat.waitUntilIdle();

    // The agent's page: its computer, with the files, their contents and history.
    await page.goto("/w/demo/agents");
    await page.getByRole("link", { name: /Forge/ }).first().click();
    const computer = page.getByTestId("computer");
    await expect(computer).toBeVisible();
    await expect(computer.getByRole("list", { name: "Files" })).toContainText("count.py");
    await computer.getByText(/^Terminal: the last \d+ commands you may see$/).click();
    await expect(computer.getByTestId("computer-terminal")).toContainText("$ python3 count.py");
    await expect(computer.getByTestId("computer-terminal")).toContainText("tick 3");
    await expect(computer.getByTestId("computer-terminal")).toContainText("(exit code 0");
    // Code is highlighted by its extension.
    await computer.getByRole("button", { name: "count.py" }).click();
    await expect(page.getByTestId("file-view").getByLabel("Contents of count.py").locator(".hljs-keyword").first()).toHaveText(/^(import|for|in)$/);
    await page.getByTestId("file-view").getByText(/^Changes from version \d+ to version \d+$/).click();
    await expect(page.getByTestId("file-view").getByTestId("diff")).toContainText(`+# ran ${tag}`);
    await computer.getByRole("button", { name: `ticks-${tag}.txt` }).click();
    const file = page.getByTestId("file-view");
    await expect(file.getByLabel(`Contents of ticks-${tag}.txt`)).toHaveText("4 ticks\n");
    await file.getByText(/^History: 1 version$/).click();
    await expect(file.getByRole("list", { name: "Versions" })).toContainText("Version 1");

    // On a phone, in both themes: nothing wider than the screen, nothing axe objects to.
    await page.setViewportSize({ width: 360, height: 740 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(file).toBeVisible();
      expect(await horizontalOverflow(page)).toBe(0);
      const result = await new AxeBuilder({ page }).include("[data-testid=computer]").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
      expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
    }
  });

  test("a reviewer on a phone approves @forge's command that asks for the network; then @forge's browser opens a page and shows it", async ({ page, browser }) => {
    // A second person, an approval, a command and a browser started in its sandbox.
    test.setTimeout(120_000);
    await new SignInPage(page).signInAs(OWNER);
    const reviewer = await personWithRole(browser, page, "reviewer");
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith("forge");
    // "The web" here is the app's own address, which the test server's allow-list lets through the egress proxy.
    const tag = Date.now().toString(36);
    await chat.send(`run online curl -sS ${APP_ORIGIN}/api/health?from=${tag}`);
    const step = chat.step(chat.lastReply(), "shell.exec");
    await expect(chat.stepStatus(step)).toHaveText("Awaiting approval");
    await expect(step).toContainText("On: public addresses only, through Clawdeck's proxy");

    // A reviewer, on a phone, sees exactly what will run (the command, the network on) and approves it.
    await reviewer.page.setViewportSize({ width: 390, height: 844 });
    const inbox = new ApprovalsPage(reviewer.page);
    await inbox.goto("demo");
    const card = inbox.pending().getByRole("article").filter({ hasText: `from=${tag}` });
    await expect(card).toContainText("Run a command in the agent's computer");
    await expect(card).toContainText("On: public addresses only, through Clawdeck's proxy");
    await expect(card).toContainText("Runs code");
    expect(await horizontalOverflow(reviewer.page)).toBe(0);
    await inbox.approve(card);
    await expect(card).toHaveCount(0);
    await reviewer.context.close();

    // The command ran with the network: the app's health answer is in its output.
    const terminal = step.getByTestId("terminal");
    await expect(terminal.getByTestId("terminal-ending")).toContainText("Exit code 0", { timeout: 30_000 });
    await expect(terminal).toContainText('"status"');
    await chat.waitUntilIdle();

    // The browser: a page opened in @forge's own Chromium, shown with its screenshot and address.
    await chat.send(`browse ${APP_ORIGIN}/sign-in`);
    const browsed = chat.step(chat.lastReply(), "browser.open");
    await expect(chat.stepStatus(browsed)).toHaveText("Succeeded", { timeout: 60_000 });
    const shot = browsed.getByTestId("browser-block");
    await expect(shot).toContainText(`${APP_ORIGIN}/sign-in`);
    await expect(shot.getByRole("img", { name: /^Screenshot of / })).toHaveJSProperty("complete", true);
    expect(await shot.getByRole("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1280);
    await chat.waitUntilIdle();

    // The agent's page shows what its browser showed last.
    await page.goto("/w/demo/agents");
    await page.getByRole("link", { name: /Forge/ }).first().click();
    const seen = page.getByTestId("computer").getByRole("group", { name: "Browser" });
    await expect(seen).toContainText(`${APP_ORIGIN}/sign-in`);
  });
});
