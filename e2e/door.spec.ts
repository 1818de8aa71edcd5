import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { RunPage } from "./pages/run-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

test.describe("the door", () => {
  test("a manager makes a token (shown once); an outside MCP client's gated call waits in the inbox, marked as through the door, until a reviewer approves", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const handle = `door${Date.now().toString(36)}`;
    const created = await page.request.post("/api/agents", {
      headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN },
      data: { handle, name: "Doorman", model: "offline", tools: ["slack.post", "memory.recall"], description: "Acts for outside agents" },
    });
    expect(created.status()).toBe(201);
    const { agent } = (await created.json()) as { agent: { id: string } };

    const manager = await personWithRole(browser, page, "manager");
    const reviewer = await personWithRole(browser, page, "reviewer");
    let client: Client | undefined;
    try {
      // The manager makes a token on the agent's page: it is shown once.
      await manager.page.goto(`/w/demo/agents/${agent.id}`);
      const panel = manager.page.getByTestId("door-tokens");
      await panel.getByLabel("Name").fill("laptop");
      await panel.getByRole("button", { name: "Create token" }).click();
      const shown = panel.getByTestId("door-token-value");
      await expect(shown).toHaveText(/^cdk_[A-Za-z0-9_-]{43}$/);
      const token = (await shown.textContent())!;
      // Ready to paste: the endpoint, and each client's setup with the token filled in.
      const endpoint = `${new URL(APP_ORIGIN).origin}/api/mcp`;
      await expect(panel.getByTestId("door-endpoint")).toHaveText(endpoint);
      const snippet = panel.getByTestId("door-snippet");
      await expect(snippet).toHaveText(`claude mcp add --transport http clawdeck ${endpoint} \\\n  --header "Authorization: Bearer ${token}"`);
      await panel.getByRole("radio", { name: "Cursor" }).click();
      expect(JSON.parse((await snippet.textContent())!)).toEqual({ mcpServers: { clawdeck: { url: endpoint, headers: { Authorization: `Bearer ${token}` } } } });
      await panel.getByRole("radio", { name: "Claude Desktop" }).click();
      await expect(snippet).toContainText(`"CLAWDECK_DOOR": "Bearer ${token}"`);
      await expect(panel.getByTestId("door-token-row")).toContainText("laptop");
      await manager.page.reload();
      await expect(manager.page.getByTestId("door-token-row")).toContainText("laptop");
      await expect(manager.page.getByText(token)).toHaveCount(0);

      // An outside agent connects with the SDK's own client and asks to post to Slack.
      client = new Client({ name: "outside-agent", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("/api/mcp", APP_ORIGIN), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["memory.recall", "slack.post"]);
      const call = client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "hello from outside" } }, undefined, {
        onprogress: () => undefined,
        resetTimeoutOnProgress: true,
      });

      // The reviewer sees it in the inbox, marked as coming through the door, and approves.
      const inbox = new ApprovalsPage(reviewer.page);
      await inbox.goto("demo");
      const card = await inbox.open(handle, 0, 20_000);
      await expect(card).toContainText("through the door by “laptop”");
      await expect(card.getByTestId("approval-preview")).toContainText("hello from outside");
      await expect(card.getByRole("list", { name: "Taint sources" })).toContainText("Came through the door token “laptop”");
      await inbox.approve(card);
      await expect(card).toHaveCount(0);

      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain("outbox");
      // The client ends its session: the session's run finishes.
      await (client.transport as StreamableHTTPClientTransport).terminateSession();

      // The run page shows the door session's run and its step.
      const detail = await reviewer.page.request.get(`/api/agents/${agent.id}`, { headers: { "x-clawdeck-workspace": "demo" } });
      const runs = ((await detail.json()) as { runs: { id: string; trigger: string }[] }).runs;
      expect(runs.map((r) => r.trigger)).toEqual(["door"]);
      await reviewer.page.goto(`/w/demo/runs/${runs[0]!.id}`);
      const run = new RunPage(reviewer.page);
      await run.waitLoaded("Doorman");
      await expect(reviewer.page.getByText("Started by a call through the door (MCP)")).toBeVisible();
      await expect(run.step("slack.post")).toBeVisible();
      await expect(run.state()).toHaveText(/Succeeded/);

      // Revoking asks first; once done, the token opens nothing.
      await manager.page.reload();
      const row = manager.page.getByTestId("door-token-row").filter({ hasText: "laptop" });
      await row.getByRole("button", { name: "Revoke…" }).click();
      await row.getByRole("button", { name: "Keep it" }).click();
      await expect(row).toContainText("active");
      await row.getByRole("button", { name: "Revoke…" }).click();
      await row.getByRole("button", { name: "Revoke “laptop”" }).click();
      await expect(row).toContainText("revoked");
      const refused = await manager.page.request.post("/api/mcp", {
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        data: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late", version: "1" } } },
      });
      expect(refused.status()).toBe(401);
    } finally {
      await client?.close();
      await manager.context.close();
      await reviewer.context.close();
    }
  });

  test("a manager sets the governor per category; fail open shows a warning and is kept", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    await page.goto("/w/demo/settings/policy");
    const panel = page.getByTestId("governor-panel");
    await panel.getByLabel("Spends money").selectOption("judge");
    await expect(panel.getByRole("alert")).toHaveCount(0);
    await panel.getByLabel(/Fail open/).check();
    await expect(panel.getByRole("alert")).toContainText("lets gated actions run with nobody deciding");
    await panel.getByLabel(/Door wait/).fill("45");
    await panel.getByRole("button", { name: "Save governor" }).click();
    await expect(panel.getByRole("button", { name: "Save governor" })).toBeEnabled();
    await page.reload();
    await expect(page.getByTestId("governor-panel").getByLabel("Spends money")).toHaveValue("judge");
    await expect(page.getByTestId("governor-panel").getByLabel(/Fail open/)).toBeChecked();
    await expect(page.getByTestId("governor-panel").getByLabel(/Door wait/)).toHaveValue("45");
    const saved = await page.request.get("/api/governor", { headers: { "x-clawdeck-workspace": "demo" } });
    expect(((await saved.json()) as { governor: { modes: Record<string, string>; failOpen: boolean } }).governor).toMatchObject({ modes: { spend: "judge" }, failOpen: true, doorWaitSeconds: 45 });
  });
});
