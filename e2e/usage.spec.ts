import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { BillingPage, OverviewCards, UsagePage } from "./pages/usage-page";
import { personWithRole } from "./people";

test.describe("usage and budgets", () => {
  test("a manager's SPEND card moves, without a reload, after a member chats with the offline model", async ({ page, browser }) => {
    test.setTimeout(90_000);
    await new SignInPage(page).signInAs(OWNER);
    const manager = await personWithRole(browser, page, "manager");
    const member = await personWithRole(browser, page, "member");
    try {
      const cards = new OverviewCards(manager.page);
      await cards.goto("demo");
      await expect(cards.spendCard()).toBeVisible();
      await expect(cards.throughputCard()).toBeVisible();
      const spendBefore = (await cards.spendToday().textContent()) ?? "";
      const runsBefore = Number((await cards.runsToday().textContent())?.replace(/,/g, ""));
      expect(spendBefore).toMatch(/^\$/);

      // Members see activity, not spend, and have no Usage page.
      const memberCards = new OverviewCards(member.page);
      await memberCards.goto("demo");
      await expect(memberCards.spendCard()).toHaveCount(0);
      await expect(new AppShell(member.page).nav().getByRole("link", { name: "Usage" })).toHaveCount(0);

      // The offline model's nominal price ($0.25 / $1.25 per Mtok) makes even a short chat cost a few hundred credits;
      // the member sees the tokens of the reply, not its cost.
      const chat = new ChatPage(member.page);
      await chat.goto("demo");
      await chat.startWith("scout");
      await chat.send(`remember the spend check on ${new Date().toISOString()}: ${"the quarterly figures are in the shared folder. ".repeat(20)}`);
      await expect(chat.lastReply().getByTestId("reply-usage")).toContainText("out tokens", { timeout: 20_000 });
      await expect(chat.lastReply().getByTestId("reply-usage")).not.toContainText("$");
      await chat.waitUntilIdle();

      // The manager's page refreshes on its own.
      await expect(cards.spendToday()).not.toHaveText(spendBefore, { timeout: 20_000 });
      await expect.poll(async () => Number((await cards.runsToday().textContent())?.replace(/,/g, "")), { timeout: 20_000 }).toBeGreaterThan(runsBefore);
      await manager.page.screenshot({ path: test.info().outputPath("overview-cards.png"), fullPage: true });
    } finally {
      await manager.context.close();
      await member.context.close();
    }
  });

  test("the usage page: presets, grouping by model, charts, and a CSV whose rows and total are the table's", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    // Some usage today, whatever ran before.
    const chat = new ChatPage(page);
    await chat.goto("demo");
    await chat.startWith("atlas");
    await chat.send("recall launch");
    await chat.waitUntilIdle();

    const usage = new UsagePage(page);
    await usage.goto("demo");
    await usage.choose("Today");
    await usage.groupBy("Model");
    await expect(usage.rows().filter({ hasText: "offline (nominal price)" })).toHaveCount(1);
    await expect(usage.chart("Spend over time").locator(".recharts-bar-rectangle").first()).toBeVisible();
    // An area over the range's hours, or one bar when the range is a single hour (just after midnight).
    await expect(usage.chart("Tokens over time").locator(".recharts-area path, .recharts-bar-rectangle").first()).toBeVisible();
    const total = await usage.totalCredits();
    expect(total).toBeGreaterThan(0);
    expect((await usage.rowCredits()).reduce((a, b) => a + b, 0)).toBe(total);

    const csv = (await usage.exportCsv()).trim().split("\r\n");
    expect(csv[0]).toBe("group,key,label,calls,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,unpriced_calls,credits,usd,compute_seconds");
    const body = csv.slice(1, -1);
    const creditsColumn = csv[0]!.split(",").indexOf("credits");
    const totalLine = csv.at(-1)!.split(",");
    expect(totalLine[0]).toBe("total");
    expect(Number(totalLine[creditsColumn])).toBe(total);
    expect(body.map((line) => Number(line.split(",")[creditsColumn]))).toEqual(await usage.rowCredits());
    expect(body.map((line) => line.split(",")[0])).toEqual(body.map(() => "model"));

    await usage.choose("30 days");
    await usage.groupBy("Agent");
    await expect(usage.rows().filter({ hasText: "(@atlas)" })).toHaveCount(1);
    expect(await usage.totalCredits()).toBeGreaterThanOrEqual(total);
    await page.screenshot({ path: test.info().outputPath("usage-page.png"), fullPage: true });
  });

  test("a budget of $0, or one that rounds to it, is saved only once the manager confirms it stops those runs; a budget too large is refused in words", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const headers = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };
    const handle = `zero${Date.now().toString(36)}`;
    const created = await page.request.post("/api/agents", { headers, data: { handle, name: "Zero", model: "offline", tools: [] } });
    expect(created.status()).toBe(201);
    const agentId = ((await created.json()) as { agent: { id: string } }).agent.id;
    const stored = async () =>
      ((await (await page.request.get("/api/budgets", { headers })).json()) as { agents: { agentId: string; budgetCredits: number | null }[] }).agents.find((a) => a.agentId === agentId)!
        .budgetCredits;
    const billing = new BillingPage(page);
    await billing.goto("demo");
    const save = page.getByRole("button", { name: "Save budgets" });
    const warning = page.getByTestId("zero-budget");

    await billing.agentBudget(handle).fill("0");
    await save.click();
    await expect(warning).toContainText(`A budget of $0 stops every run of @${handle} before its next model call. To have no limit, leave the field empty.`);
    await warning.getByRole("button", { name: "Keep editing" }).click();
    await expect(warning).toHaveCount(0);
    expect(await stored()).toBeNull();

    await billing.agentBudget(handle).fill("1e99");
    await save.click();
    await expect(page.getByRole("form", { name: "Budgets" }).getByRole("alert")).toHaveText(/^A budget can be at most \$1,000,000,000/);
    expect(await stored()).toBeNull();

    await billing.agentBudget(handle).fill("0.0000001");
    await save.click();
    await warning.getByRole("button", { name: "Save with $0" }).click();
    await expect(page.getByRole("region", { name: /^Notifications/ }).getByText("Budgets saved")).toBeVisible();
    expect(await stored()).toBe(0);
    await page.request.put("/api/budgets", { headers, data: { agents: [{ agentId, monthlyBudgetCredits: null }] } });
  });

  test("a manager caps an agent's budget: the member's next message is refused with a clear message, and the banner shows", async ({ page, browser }) => {
    test.setTimeout(180_000);
    await new SignInPage(page).signInAs(OWNER);
    const handle = `capped${Date.now().toString(36)}`;
    const created = await page.request.post("/api/agents", {
      headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN },
      data: { handle, name: "Capped", model: "offline", tools: ["memory.remember"], description: "Runs on a tiny budget" },
    });
    expect(created.status()).toBe(201);
    const agentId = ((await created.json()) as { agent: { id: string } }).agent.id;
    const manager = await personWithRole(browser, page, "manager");
    const reviewer = await personWithRole(browser, page, "reviewer");
    const member = await personWithRole(browser, page, "member");
    try {
      // A reviewer reads the budgets but cannot change them.
      const asReviewer = new BillingPage(reviewer.page);
      await asReviewer.goto("demo");
      await expect(asReviewer.agentBudget(handle)).toBeDisabled();
      await expect(reviewer.page.getByRole("button", { name: "Save budgets" })).toHaveCount(0);

      // One credit ($0.000001): the first call is allowed (nothing spent yet), the next is refused.
      const billing = new BillingPage(manager.page);
      await billing.goto("demo");
      await billing.setAgentBudget(handle, "0.000001");

      const chat = new ChatPage(member.page);
      await chat.goto("demo");
      await chat.startWith(handle);
      // The first model call is allowed (nothing spent yet); the one after the tool step is refused, and the run stops.
      await chat.send("remember the budget is tiny");
      await chat.waitUntilIdle();
      const stopped = chat.lastReply().getByRole("alert");
      await expect(stopped).toContainText("The reply failed");
      await expect(stopped).toContainText(`@${handle} has used its monthly budget`);
      // From then on the chat says why it cannot answer, and the composer waits for a manager: no message is taken
      // only to make a run that fails.
      const banner = member.page.getByTestId("budget-banner");
      await expect(banner).toContainText(`@${handle} has used its monthly budget for`);
      await expect(banner).toContainText("Ask a manager to raise it.");
      await expect(chat.input()).toBeDisabled();
      await expect(member.page.getByRole("alert").filter({ hasText: "cannot answer until" })).toHaveCount(0);
      // After a reload too: the chat knows before anyone writes.
      await member.page.reload();
      await expect(member.page.getByTestId("budget-banner")).toContainText(`@${handle} has used its monthly budget for`);
      await expect(chat.input()).toBeDisabled();

      const cards = new OverviewCards(manager.page);
      await cards.goto("demo");
      await expect(cards.budgetBanner()).toContainText(new RegExp(`@${handle}: [\\d,]{3,} % of the monthly budget`));
      await expect(cards.budgetStops()).toBeVisible();
      await billing.goto("demo");
      await expect(billing.budgetRow(handle).getByTestId("budget-status")).toHaveText(/^[\d,]{3,} % of the monthly budget: runs stop$/);
      // The agent's own page says the same share.
      await manager.page.goto(`/w/demo/agents/${agentId}`);
      await expect(manager.page.getByTestId("agent-budget")).toHaveText(/^[\d,]{3,} % of the monthly budget: runs stop \(/);
      // A manager in the same chat's place is offered the way to raise it.
      const managerChat = await manager.page.request.post("/api/sessions", { headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN }, data: { agentHandle: handle } });
      const { id: managerSession } = (await managerChat.json()) as { id: string };
      await manager.page.goto(`/w/demo/chat/${managerSession}`);
      await expect(manager.page.getByTestId("budget-banner").getByRole("link", { name: "Raise the budget in Billing" })).toHaveAttribute("href", "/w/demo/settings/billing");
    } finally {
      // Lift the cap so the agent is usable again.
      await manager.page.request.put("/api/budgets", { headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN }, data: { agents: [{ agentId, monthlyBudgetCredits: null }] } });
      await manager.context.close();
      await reviewer.context.close();
      await member.context.close();
    }
  });
});
