import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";
import { agentAsked, DEMO } from "./asked";


test.describe("gated actions", () => {
  // Three people sign in and a run waits for a decision: on a busy machine this takes more than the default minute.
  test.describe.configure({ timeout: 120_000 });

  test("a reviewer approves a tainted Slack post live from the inbox; the member's chat resumes with the result", async ({ page, browser, baseURL }) => {
    await new SignInPage(page).signInAs(OWNER);
    const handle = `relay${Date.now().toString(36)}`;
    const created = await page.request.post("/api/agents", {
      headers: { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN },
      data: { handle, name: "Relay", model: "offline", tools: ["http.fetch", "slack.post"], description: "Reads pages and posts summaries" },
    });
    expect(created.status()).toBe(201);

    const member = await personWithRole(browser, page, "member");
    const reviewer = await personWithRole(browser, page, "reviewer");
    try {
      const inbox = new ApprovalsPage(reviewer.page);
      await inbox.goto("demo");
      await expect(inbox.requests(handle)).toHaveCount(0);

      const chat = new ChatPage(member.page);
      await chat.goto("demo");
      await chat.startWith(handle);
      // The sign-in page is a real web page: fetching it taints the run before the post.
      await chat.send(`fetch ${baseURL}/sign-in\nslack #general hello`);
      const reply = chat.lastReply();
      await expect(chat.step(reply, "http.fetch")).toContainText("Read a web page on 127.0.0.1");
      const slackStep = chat.step(reply, "slack.post");
      await expect(slackStep.getByTestId("approval-pending")).toBeVisible();
      await expect(chat.stepStatus(slackStep)).toHaveText("Awaiting approval");

      // Appears in the reviewer's inbox without a reload, with its preview and taint.
      const card = await inbox.open(handle);
      await expect(card.getByTestId("approval-preview")).toContainText("#general");
      await expect(card.getByTestId("approval-preview")).toContainText("hello");
      await expect(card.getByRole("list", { name: "Taint sources" })).toContainText("Read a web page on 127.0.0.1");
      await expect(card).toContainText("Passes on untrusted content");
      await expect(inbox.badge()).toHaveText(/^[1-9]\d*$/);
      await inbox.approve(card);
      await expect(card).toHaveCount(0);

      await expect(slackStep.getByTestId("approval-decided")).toContainText(`Approved by ${reviewer.person.name}`);
      await expect(slackStep.getByTestId("approval-decided")).toContainText("in the inbox.");
      await expect(chat.stepStatus(slackStep)).toHaveText("Succeeded");
      await expect(slackStep.getByTestId("step-summary")).toContainText("kept in the Outbox");
      await expect(chat.stopButton()).toHaveCount(0);

      const outbox = await member.page.request.get("/api/outbox", { headers: { "x-clawdeck-workspace": "demo" } });
      const messages = (await outbox.json()).messages as { body: string; agent: { handle: string } }[];
      expect(messages.filter((m) => m.agent.handle === handle).map((m) => m.body)).toEqual(["hello"]);

      const history = await inbox.openHistory();
      await expect(history.getByRole("listitem", { name: /approved: Post to Slack/ }).first()).toContainText(reviewer.person.name);
    } finally {
      await member.context.close();
      await reviewer.context.close();
    }
  });

  test("a rejection goes back to the chat as a refusal with the reviewer's reason", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const member = await personWithRole(browser, page, "member");
    const reviewer = await personWithRole(browser, page, "reviewer");
    try {
      const chat = new ChatPage(member.page);
      await chat.goto("demo");
      await chat.startWith("herald");
      await chat.send("slack #general hello");
      const slackStep = chat.step(chat.lastReply(), "slack.post");
      await expect(slackStep.getByTestId("approval-pending")).toBeVisible();

      const inbox = new ApprovalsPage(reviewer.page);
      await inbox.goto("demo");
      const card = await inbox.open("herald");
      await expect(card).toContainText("Sends outside");
      await expect(card).toContainText("No untrusted content reached this run");
      await inbox.reject(card, "Not in #general, please");
      await expect(card).toHaveCount(0);

      await expect(slackStep.getByTestId("approval-decided")).toContainText(`Rejected by ${reviewer.person.name}`);
      await expect(slackStep.getByTestId("approval-decided")).toContainText("in the inbox: “Not in #general, please”");
      await expect(chat.stepStatus(slackStep)).toHaveText("Rejected");
      await expect(chat.lastReply()).toContainText("did not work");
    } finally {
      await member.context.close();
      await reviewer.context.close();
    }
  });

  test("hidden characters in a gated input are named and marked on the card, escaped in its exact input and its editor, and sent as they are", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    // Shown as it acts, the override turns "1234-9876" round into "6789-4321".
    const text = "pay \u202E1234-9876\u202C today";
    const {
      handle,
      sessionIds: [id],
    } = await agentAsked(page, "bidi", [`slack #general ${text}`]);

    const reviewer = await personWithRole(browser, page, "reviewer");
    try {
      const inbox = new ApprovalsPage(reviewer.page);
      await inbox.goto("demo");
      const card = await inbox.open(handle, 0, 20_000);
      await expect(card.getByTestId("hidden-characters")).toContainText("U+202E (right-to-left override), U+202C (end of a direction override)");
      const preview = card.getByTestId("approval-preview");
      await expect(preview).toContainText("pay U+202E1234-9876U+202C today");
      expect(await preview.innerText()).not.toMatch(/[\u202A-\u202E]/);
      await card.getByText("Exact input").click();
      await expect(card.locator("pre")).toContainText('"text": "pay \\u202e1234-9876\\u202c today"');

      // The form would show the text turned round: the editor opens on the JSON, escaped, which decodes to the same text.
      await card.getByRole("button", { name: "Edit, then approve…" }).click();
      await expect(card.getByTestId("edit-form")).toHaveCount(0);
      const json = await card.getByLabel("Input (JSON)").inputValue();
      expect(json).not.toMatch(/[\u202A-\u202E]/);
      expect(JSON.parse(json)).toEqual({ channel: "#general", text });
      await card.getByRole("button", { name: "Back" }).click();

      await inbox.approve(card);
      await expect(card).toHaveCount(0);
    } finally {
      await reviewer.context.close();
    }
    const outbox = (await (await page.request.get("/api/outbox", { headers: DEMO })).json()) as { messages: { body: string; agent: { handle: string } }[] };
    expect(outbox.messages.filter((m) => m.agent.handle === handle).map((m) => m.body)).toEqual([text]);

    // The requester's chat marks them the same way in the step's preview.
    await page.goto(`/w/demo/chat/${id}`);
    const step = page.getByRole("group", { name: "Tool step slack.post" });
    await expect(step.getByTestId("step-status")).toHaveText("Succeeded", { timeout: 20_000 });
    await expect(step.locator("[data-hidden-character='U+202E']").first()).toBeVisible();
  });

  test("a person's own request that needs four eyes says who else can approve it, with the way to Members and to the policy", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const { handle } = await agentAsked(page, "own", ["slack #general hi"]);

    const inbox = new ApprovalsPage(page);
    await inbox.goto("demo");
    const card = await inbox.open(handle, 0, 20_000);
    const note = card.getByTestId("four-eyes-note");
    await expect(note).toContainText("this workspace needs someone else to approve it");
    await expect(card.getByTestId("approval-preview")).toContainText("kept in the Outbox, not sent");
    await expect(note.getByRole("link", { name: "invite one" })).toHaveAttribute("href", "/w/demo/settings/members");
    await note.getByRole("link", { name: "policy" }).click();
    await expect(page).toHaveURL(/\/w\/demo\/settings\/policy$/);

    await inbox.goto("demo");
    await inbox.reject(await inbox.open(handle), "Not now");
    await expect(inbox.requests(handle)).toHaveCount(0);
  });

  test("a team of one: the owner is told why their own request waits, turns on approving it themself, and approves it", async ({ page: ownerPage, browser }) => {
    // Someone who makes a workspace of their own (not the demo owner, whose workspace list other tests check).
    await new SignInPage(ownerPage).signInAs(OWNER);
    const founder = await personWithRole(browser, ownerPage, "member");
    const page = founder.page;
    const made = await page.request.post("/api/workspaces", { headers: { origin: APP_ORIGIN }, data: { name: `Solo ${Date.now().toString(36)}` } });
    expect(made.status()).toBe(201);
    const slug = ((await made.json()) as { workspace: { slug: string } }).workspace.slug;
    const headers = { "x-clawdeck-workspace": slug, origin: APP_ORIGIN };
    const agent = await page.request.post("/api/agents", { headers, data: { handle: "solo", name: "Solo", model: "offline", tools: ["slack.post"], description: "Posts" } });
    expect(agent.status()).toBe(201);
    const session = await page.request.post("/api/sessions", { headers, data: { agentHandle: "solo" } });
    const { id } = (await session.json()) as { id: string };
    expect((await page.request.post(`/api/sessions/${id}/messages`, { headers, data: { text: "slack #general launch day" } })).ok()).toBe(true);

    const inbox = new ApprovalsPage(page);
    await inbox.goto(slug);
    const banner = inbox.pending().getByTestId("team-of-one");
    await expect(banner).toContainText("You are the only reviewer here", { timeout: 20_000 });
    await expect(banner.getByRole("link", { name: "Invite a reviewer" })).toHaveAttribute("href", `/w/${slug}/settings/members`);
    const card = await inbox.open("solo");
    await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeDisabled();

    await banner.getByRole("button", { name: "Approve my own requests…" }).click();
    await banner.getByRole("button", { name: "Turn it on until a second reviewer joins" }).click();
    await expect(inbox.pending().getByTestId("team-of-one")).toHaveCount(0);
    await expect(card.getByTestId("own-while-alone")).toContainText(`turned on by ${founder.person.name}`);
    await expect(card.getByTestId("four-eyes-note")).toHaveCount(0);
    await inbox.approve(card);
    await expect(inbox.requests("solo")).toHaveCount(0);
    const history = await inbox.openHistory();
    await expect(history.getByRole("listitem", { name: /^approved: / })).toContainText(`by ${founder.person.name}`);
    await founder.context.close();
  });

  test("a reviewer decides on the run's own page, and the requester's chat says who decided and where; its inbox link opens that request", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const {
      handle,
      sessionIds: [sessionId],
    } = await agentAsked(page, "onpage", ["slack #general straight from the run"]);
    const reviewer = await personWithRole(browser, page, "reviewer");
    try {
      // The requester's step links to its own request in the inbox.
      await page.goto(`/w/demo/chat/${sessionId}`);
      const asked = page.getByRole("group", { name: "Tool step slack.post" });
      await expect(asked.getByTestId("approval-pending")).toBeVisible({ timeout: 20_000 });
      const link = asked.getByRole("link", { name: "Open it in the Approvals inbox →" });
      const pending = (await (await page.request.get("/api/approvals?status=pending", { headers: DEMO })).json()) as { approvals: { id: string; runId: string; agent: { handle: string } }[] };
      const request = pending.approvals.find((a) => a.agent.handle === handle)!;
      await expect(link).toHaveAttribute("href", `/w/demo/approvals?approval=${request.id}`);

      await reviewer.page.goto(`/w/demo/runs/${request.runId}`);
      const step = reviewer.page.getByRole("group", { name: "Tool step slack.post" });
      await step.getByRole("button", { name: "Decide it here" }).click();
      const card = step.getByRole("article", { name: /^Approval: Post to Slack/ });
      await expect(card.getByTestId("approval-preview")).toContainText("straight from the run");
      await card.getByRole("button", { name: "Approve", exact: true }).click();
      const decided = step.getByTestId("approval-decided");
      await expect(decided).toContainText(`Approved by ${reviewer.person.name}`, { timeout: 20_000 });
      await expect(decided).toContainText("from the run's page.");
      await expect(step.getByTestId("step-status")).toHaveText("Succeeded");

      // The requester sees the same decision, live.
      await expect(asked.getByTestId("approval-decided")).toContainText(`Approved by ${reviewer.person.name}`);
      await expect(asked.getByTestId("approval-decided")).toContainText("from the run's page.");
      // And the inbox's history says where it was decided.
      const inbox = new ApprovalsPage(reviewer.page);
      await inbox.goto("demo");
      const history = await inbox.openHistory();
      await expect(history.getByRole("listitem", { name: /approved: Post to Slack/ }).filter({ hasText: "straight from the run" })).toContainText(
        `by ${reviewer.person.name} from the run's page`,
      );
    } finally {
      await reviewer.context.close();
    }
  });
});
