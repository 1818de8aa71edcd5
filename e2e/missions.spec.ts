import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { MissionsPage } from "./pages/missions-page";
import { personWithRole } from "./people";
import { SignInPage } from "./pages/sign-in-page";

test.describe("missions", () => {
  test("a manager builds a lead-and-workers crew in the editor, runs it, watches the nodes light up, reads the result and scrubs it", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const missions = new MissionsPage(page);
    await missions.goto("demo");
    const name = `Crew ${Date.now().toString(36)}`;
    await missions.buildCrew({ name, template: "Lead and workers", bind: { Lead: "atlas", "Worker 1": "scout", "Worker 2": "herald", "Lead (merge)": "atlas" } });
    await missions.start(name, "Plan the launch party");

    // Both workers run after the lead: each is seen running, then done.
    await expect(missions.node("worker1")).toHaveAttribute("data-state", "running");
    await expect(missions.node("worker2")).toHaveAttribute("data-state", /running|done/);
    await expect(missions.state()).toHaveText("Succeeded", { timeout: 30_000 });
    for (const id of ["lead", "worker1", "worker2", "merge"]) await expect(missions.node(id)).toHaveAttribute("data-state", "done");
    await expect(missions.result()).toContainText("Lead (merge) on “Plan the launch party”: brought together the work of @scout (Worker 1) and @herald (Worker 2).");
    await expect(missions.result()).toContainText("@scout (Worker 1): built on the work of @atlas (Lead).");
    await expect(missions.result()).toContainText("@herald (Worker 2): built on the work of @atlas (Lead).");
    await expect(page.getByRole("region", { name: "Handoffs" }).getByRole("listitem")).toHaveCount(4);

    // Scrubbing the finished mission shows it as it stood: after event 2 only the lead had started.
    const stat = (label: string) => page.locator("dl > div").filter({ has: page.getByText(label, { exact: true }) }).locator("dd");
    const finalTokens = await stat("Tokens").innerText();
    expect(finalTokens).not.toBe("0");
    await expect(stat("Nodes done")).toHaveText("4 / 4");
    const replay = page.getByRole("slider");
    await replay.fill("2");
    await expect(page.getByRole("region", { name: "Replay" })).toContainText("event 2 of");
    // The header too: running then, nothing done, no turn ended so no tokens yet.
    await expect(missions.state()).toHaveText("Running");
    await expect(stat("Nodes done")).toHaveText("0 / 4");
    await expect(stat("Tokens")).toHaveText("0");
    await expect(missions.node("lead")).toHaveAttribute("data-state", "running");
    await expect(missions.node("merge")).toHaveAttribute("data-state", "waiting");
    await expect(page.getByRole("region", { name: "Handoffs" }).getByRole("listitem")).toHaveCount(0);
    // As it stood then: the merge had no run yet and the mission no result.
    await expect(missions.node("merge").getByRole("link", { name: "Open run" })).toHaveCount(0);
    await expect(missions.node("lead").getByRole("link", { name: "Open run" })).toHaveCount(1);
    await expect(page.getByTestId("mission-result")).toHaveCount(0);
    await expect(page.getByText("Not finished at this point of the replay.")).toBeVisible();
    await replay.fill(await replay.getAttribute("max") ?? "0");
    await expect(missions.node("merge")).toHaveAttribute("data-state", "done");
    await expect(missions.state()).toHaveText("Succeeded");
    await expect(stat("Tokens")).toHaveText(finalTokens);
    await expect(page.getByTestId("mission-result")).toBeVisible();

    // A node leads to its run.
    await missions.node("worker1").getByRole("link", { name: "Open run" }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  });

  test("a crew refused on save marks the node at fault; the demo crew runs offline", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const missions = new MissionsPage(page);
    await missions.goto("demo");
    await page.getByRole("link", { name: "New crew" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Too big");
    await page.getByLabel("Template").selectOption({ label: "Graph with a join" });
    await page.getByRole("button", { name: "Use template" }).click();
    // A template's nodes start with different agents, not all with the first one.
    const handles = await page.getByRole("region", { name: "Crew canvas" }).locator("p.font-mono").allInnerTexts();
    expect(handles.length).toBeGreaterThan(2);
    expect(new Set(handles).size).toBeGreaterThan(1);
    for (let i = 0; i < 21; i++) await page.getByRole("button", { name: "Add node" }).click();
    await page.getByRole("button", { name: "Save crew" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "A crew has at most 24 nodes; this one has 25." })).toBeVisible();
    // The refused node is marked on the canvas.
    await expect(page.locator('[data-faulty="true"]')).toHaveCount(1);

    // The demo crew of first start runs as it is, with the offline model.
    await missions.goto("demo");
    await missions.start("Research and announce", "Check the demo crew");
    await expect(missions.state()).toHaveText("Succeeded", { timeout: 30_000 });
    await expect(missions.result()).toContainText("@scout (Researcher): built on the work of @atlas (Lead).");
  });

  test("compare two crews on one goal and read the judge's scores", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const name = `Solo ${Date.now().toString(36)}`;
    const crew = await page.request.post("/api/crews", {
      headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN },
      data: { name, nodes: [{ id: "writer", role: "Writer", agentHandle: "herald" }], edges: [] },
    });
    expect(crew.status()).toBe(201);
    const missions = new MissionsPage(page);
    await missions.goto("demo");
    const form = page.getByRole("form", { name: "Compare two crews" });
    await form.getByLabel("First crew").selectOption({ label: "Research and announce" });
    await form.getByLabel("Second crew").selectOption({ label: name });
    await form.getByLabel("Goal for both").fill("Announce the new office");
    await form.getByRole("button", { name: "Compare" }).click();
    await expect(page).toHaveURL(/\/missions\/compare\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("status").filter({ hasText: "Judged by offline" })).toBeVisible({ timeout: 30_000 });
    for (const crewName of ["Research and announce", name]) {
      const side = page.getByRole("article", { name: `Crew ${crewName}` });
      const scores = side.getByRole("list", { name: `Scores for ${crewName}` }).getByRole("listitem");
      await expect(scores).toHaveCount(3);
      await expect(scores.nth(0)).toContainText("Correctness: 8/10");
      await expect(scores.nth(1)).toContainText(/Completeness: \d+\/10/);
      await expect(scores.nth(2)).toContainText(/Clarity: \d+\/10/);
      await expect(side.getByLabel(/^Total score \d+ of 30$/)).toBeVisible();
      await expect(side.getByText("Approvals needed")).toBeVisible();
      await expect(side.getByText("Cost")).toBeVisible();
      await expect(side.getByRole("region", { name: `Result of ${crewName}` })).not.toBeEmpty();
    }
    await expect(page.getByRole("article", { name: "Crew Research and announce" }).getByRole("region")).toContainText("@scout (Researcher): built on the work of @atlas (Lead).");
    // The totals in a sentence: a winner named, or a tie.
    await expect(page.getByTestId("comparison-verdict")).toHaveText(/^(A tie: both crews scored \d+\/30\.|.+ scored higher: \d+\/30 against \d+\/30 for .+\.)$/);
  });

  test("a gated node is approved from the inbox, which links to its mission, and the mission finishes; a node opens its run at the step", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const headers = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };
    const handle = `crier${Date.now().toString(36)}`;
    const agent = await page.request.post("/api/agents", { headers, data: { handle, name: "Crier", model: "offline", tools: ["slack.post"] } });
    expect(agent.status()).toBe(201);
    const name = `Gated ${handle}`;
    const crew = await page.request.post("/api/crews", {
      headers,
      data: {
        name,
        nodes: [
          { id: "announce", role: "Announcer", agentHandle: handle, instructions: "slack #general the mission is under way" },
          { id: "wrap", role: "Wrapper", agentHandle: "atlas" },
        ],
        edges: [{ from: "announce", to: "wrap" }],
      },
    });
    expect(crew.status()).toBe(201);
    const missions = new MissionsPage(page);
    await missions.goto("demo");
    await missions.start(name, "Tell the team");
    const missionUrl = page.url();
    await expect(missions.node("announce")).toHaveAttribute("data-state", "awaiting_approval", { timeout: 30_000 });
    await expect(missions.node("wrap")).toHaveAttribute("data-state", "waiting");

    // The node's run opens at the step that waits.
    await missions.node("announce").getByRole("link", { name: "Open run" }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}#step-[0-9a-f-]{36}$/);
    const stepId = new URL(page.url()).hash.slice(1);
    await expect(page.locator(`[id="${stepId}"]`)).toBeInViewport();
    await expect(page.locator(`[id="${stepId}"]`)).toContainText("slack.post");

    // A reviewer finds it in the inbox, follows it to the mission and back, and approves it.
    const reviewer = await personWithRole(browser, page, "reviewer");
    try {
      const inbox = new ApprovalsPage(reviewer.page);
      await inbox.goto("demo");
      const card = await inbox.open(handle);
      await card.getByRole("link", { name: "See the mission this step belongs to →" }).click();
      await expect(reviewer.page).toHaveURL(missionUrl);
      await expect(reviewer.page.getByTestId("mission-state")).toHaveText("Running");
      await inbox.goto("demo");
      await inbox.approve(await inbox.open(handle));
      await expect(inbox.requests(handle)).toHaveCount(0);
    } finally {
      await reviewer.context.close();
    }

    await page.goto(missionUrl);
    await expect(missions.state()).toHaveText("Succeeded", { timeout: 30_000 });
    await expect(missions.node("announce")).toHaveAttribute("data-state", "done");
    await expect(missions.node("wrap")).toHaveAttribute("data-state", "done");
    await expect(missions.result()).toContainText(`@${handle} (Announcer): `);
  });
});

test.describe("missions on a phone", () => {
  test.use({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });

    test("on a phone a crew is edited by touch: a node's handoffs are removed and added from its panel, and the node itself removed", async ({ page }) => {
      await new SignInPage(page).signInAs(OWNER);
      await page.goto("/w/demo/missions/crews/new");
      const name = `Touch ${Date.now().toString(36)}`;
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Template").selectOption({ label: "Lead and workers" });
      await page.getByRole("button", { name: "Use template" }).click();
      const canvas = page.getByRole("region", { name: "Crew canvas" });
      const panel = page.getByRole("complementary", { name: "Selected node" });
      const handoffs = panel.getByRole("list", { name: "Handoffs of this node" }).getByRole("listitem");

      await canvas.getByText("Worker 2", { exact: true }).tap();
      await expect(handoffs).toHaveText(["Lead → Worker 2Remove", "Worker 2 → Lead (merge)Remove"]);
      await panel.getByRole("button", { name: "Remove node" }).tap();
      await expect(canvas.getByText("Worker 2", { exact: true })).toHaveCount(0);

      await canvas.getByText("Worker 1", { exact: true }).tap();
      await panel.getByRole("button", { name: "Remove the handoff Worker 1 to Lead (merge)" }).tap();
      await expect(handoffs).toHaveText(["Lead → Worker 1Remove"]);
      await panel.getByLabel("Hand off to").selectOption({ label: "Lead (merge)" });
      await expect(handoffs).toHaveText(["Lead → Worker 1Remove", "Worker 1 → Lead (merge)Remove"]);
      await page.getByRole("button", { name: "Save crew" }).tap();
      await expect(page).toHaveURL(/\/missions$/);

      const crews = (await (await page.request.get("/api/crews", { headers: { "x-clawdeck-workspace": "demo" } })).json()) as {
        crews: { name: string; nodes: { id: string }[]; edges: { from: string; to: string }[] }[];
      };
      const saved = crews.crews.find((c) => c.name === name)!;
      expect(saved.nodes.map((n) => n.id).sort()).toEqual(["lead", "merge", "worker1"]);
      expect(saved.edges).toEqual(expect.arrayContaining([{ from: "lead", to: "worker1" }, { from: "worker1", to: "merge" }]));
      expect(saved.edges).toHaveLength(2);
    });
});
