import { expect, test, type Page } from "@playwright/test";
import { APP_ORIGIN, newPerson, OWNER } from "./fixtures";
import { AgentPage, AgentsPage } from "./pages/agents-page";
import { AppShell } from "./pages/app-shell";
import { MembersPage } from "./pages/members-page";
import { SignInPage } from "./pages/sign-in-page";

async function signInNewPerson(browserPage: Page, ownerPage: Page, role: "manager" | "member") {
  const person = newPerson(role);
  await new MembersPage(ownerPage).goto("demo");
  await new MembersPage(ownerPage).add(person);
  await new SignInPage(browserPage).signInAs(person);
  return person;
}

test.describe("agents", () => {
  test("a manager creates an agent (an unknown provider is refused with the server's reason) and pauses it", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const context = await browser.newContext();
    try {
      const managerPage = await context.newPage();
      await signInNewPerson(managerPage, page, "manager");
      await new AppShell(managerPage).nav().getByRole("link", { name: "Agents" }).click();
      const agents = new AgentsPage(managerPage);
      await expect(agents.card("atlas")).toBeVisible();
      await expect(agents.card("atlas")).toContainText("chat.send");

      const handle = `kim${Date.now().toString(36)}`;
      await agents.openNew();
      await agents.fill({ name: "Kim", handle, model: "kimi:kimi-k2", systemPrompt: "You are Kim, the analyst.", tools: ["memory.remember", "memory.recall"] });
      await agents.save();
      await expect(agents.modelError()).toHaveText(/There is no provider named "kimi".*CLAWDECK_PROVIDER_KIMI_BASE_URL/);
      await expect(agents.form().getByLabel("Model")).toHaveAttribute("aria-invalid", "true");
      // Nothing was saved.
      const list = (await (await managerPage.request.get("/api/agents", { headers: { "x-clawdeck-workspace": "demo" } })).json()).agents as { handle: string }[];
      expect(list.map((a) => a.handle)).not.toContain(handle);

      await agents.form().getByLabel("Model").fill("offline");
      await agents.save();
      await expect(managerPage).toHaveURL(/\/w\/demo\/agents\/[0-9a-f-]{36}$/);
      const agent = new AgentPage(managerPage);
      await expect(agent.heading("Kim")).toBeVisible();
      await expect(agent.status()).toHaveText("Active");
      await expect(agent.tools()).toHaveText(/memory\.remember.*memory\.recall/);

      await agent.pause();
      await expect(agent.status()).toHaveText("Paused");
      // Pausing changes nothing else.
      await expect(agent.tools()).toHaveText(/memory\.remember.*memory\.recall/);
      await managerPage.getByText("System prompt").click();
      await expect(managerPage.getByText("You are Kim, the analyst.")).toBeVisible();

      await agents.goto("demo");
      await expect(agents.card(handle).getByTestId("agent-status")).toHaveText("Paused");
      await expect(agents.card(handle)).toContainText("Offline model");

      // Paused agents take no new chats.
      await managerPage.goto("/w/demo/chat");
      await expect(managerPage.getByRole("button", { name: `Paused — Kim (@${handle})` })).toBeDisabled();
    } finally {
      await context.close();
    }
  });

  test("pausing from a page opened before another manager's edit says so, reloads their version and keeps their edit", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const headers = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };
    const handle = `vee${Date.now().toString(36)}`;
    const made = await page.request.post("/api/agents", { headers, data: { name: "Vee", handle, model: "offline", systemPrompt: "You are Vee." } });
    expect(made.status()).toBe(201);
    const { agent } = (await made.json()) as { agent: { id: string; version: number } };
    const context = await browser.newContext();
    try {
      const managerPage = await context.newPage();
      await signInNewPerson(managerPage, page, "manager");
      await managerPage.goto(`/w/demo/agents/${agent.id}`);
      const view = new AgentPage(managerPage);
      await expect(view.heading("Vee")).toBeVisible();

      // Another manager changes the prompt while this page is open.
      const edited = await page.request.patch(`/api/agents/${agent.id}`, { headers, data: { systemPrompt: "You are Vee, and you answer in French.", version: agent.version } });
      expect(edited.status()).toBe(200);

      await view.pause();
      await expect(managerPage.getByTestId("agent-stale")).toContainText("Someone else changed this agent");
      await expect(view.status()).toHaveText("Active");
      await managerPage.getByText("System prompt").click();
      await expect(managerPage.getByText("You are Vee, and you answer in French.")).toBeVisible();

      // From the version now shown, the pause applies.
      await view.pause();
      await expect(view.status()).toHaveText("Paused");
      await expect(managerPage.getByTestId("agent-stale")).toHaveCount(0);
    } finally {
      await context.close();
    }
  });

  test("members read the agents but cannot edit them", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const context = await browser.newContext();
    try {
      const memberPage = await context.newPage();
      await signInNewPerson(memberPage, page, "member");
      const agents = new AgentsPage(memberPage);
      await agents.goto("demo");
      await expect(agents.card("scout")).toContainText("http.fetch");
      await expect(agents.newButton()).toHaveCount(0);
      await agents.card("scout").getByRole("link", { name: "Scout" }).click();
      await expect(new AgentPage(memberPage).heading("Scout")).toBeVisible();
      await expect(memberPage.getByRole("button", { name: "Pause" })).toHaveCount(0);
      await expect(memberPage.getByRole("button", { name: "Edit" })).toHaveCount(0);
      // Spend is for reviewers and up.
      await expect(memberPage.getByTestId("agent-spend")).toHaveCount(0);
    } finally {
      await context.close();
    }
  });
});
