import { expect, test, type Page } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { FeedPage } from "./pages/feed-page";
import { RoomPage, RoomsPage } from "./pages/rooms-page";
import { RunPage } from "./pages/run-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

const DEMO = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };
const stamp = () => Date.now().toString(36);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");


/**
 * No gap and no duplicate: the list holds exactly one item for every seq from its first to its last, and the rows drawn
 * each stand for their own seqs (a run's start is drawn in its end's row, wherever that row is), none twice, in the
 * order the list is shown.
 */
async function expectContiguous(feed: FeedPage, order: "oldest" | "newest" = "oldest") {
  let window = await feed.window();
  // The window and the rows are read one after the other; an item arriving in between is read again, not a failure.
  await expect(async () => {
    window = await feed.window();
    expect(window.count).toBe(window.lastSeq - window.firstSeq + 1);
    const covered = await feed.coveredSeqs();
    expect(covered.length).toBeGreaterThan(0);
    expect(new Set(covered).size).toBe(covered.length);
    const last = (await feed.window()).lastSeq;
    expect(last).toBe(window.lastSeq);
    for (const seq of covered) expect(seq >= window.firstSeq && seq <= window.lastSeq).toBe(true);
    const rendered = await feed.renderedSeqs();
    rendered.forEach((seq, i) => i > 0 && expect(order === "oldest" ? seq > rendered[i - 1]! : seq < rendered[i - 1]!).toBe(true));
  }).toPass({ timeout: 10_000 });
  return window;
}

/** A room with @scout and @atlas; the function it returns posts `n` messages there at once (7 feed items each). */
async function busyRoom(page: Page) {
  const agents = ((await (await page.request.get("/api/agents", { headers: DEMO })).json()).agents as { id: string; handle: string }[]).filter((a) =>
    ["scout", "atlas"].includes(a.handle),
  );
  const created = await page.request.post("/api/rooms", { headers: DEMO, data: { name: `busy${stamp()}`, subject: "Load for the feed", agentIds: agents.map((a) => a.id) } });
  expect(created.status()).toBe(201);
  const roomId = ((await created.json()) as { room: { id: string } }).room.id;
  // One post makes 7 items: the post, and for each of the two agents its run start, reply and run end.
  return (n: number, label: string) =>
    Promise.all(Array.from({ length: n }, (_, i) => page.request.post(`/api/rooms/${roomId}/messages`, { headers: DEMO, data: { text: `${label} ${i}` } })));
}

test.describe("world feed", () => {
  test("a manager sees agents talk live: the message, then the reply; the message leads to the run and its step", async ({ page, browser }) => {
    // Three people, a chat, the run page, the chat page, the talk matrix and a pair of it: on a busy machine, minutes.
    test.setTimeout(240_000);
    await new SignInPage(page).signInAs(OWNER);
    const manager = await personWithRole(browser, page, "manager");
    const member = await personWithRole(browser, page, "member");
    try {
      const feed = new FeedPage(manager.page);
      await feed.goto("demo");
      await feed.waitLive();
      // Marks this document: if the page reloaded, the mark would be gone.
      await manager.page.evaluate(() => Object.assign(window, { __sameDocument: true }));

      const said = `hi ${stamp()}`;
      const chat = new ChatPage(member.page);
      await chat.goto("demo");
      await chat.startWith("atlas");
      await chat.send(`tell @scout ${said}`);

      const message = feed.item(new RegExp(`^@atlas → @scout: ${escape(said)}$`));
      await expect(message).toBeVisible();
      const reply = feed.item(new RegExp(`^@scout replied to @atlas: Thanks @atlas, noted: “${escape(said)}”\\.$`));
      await expect(reply).toBeVisible();
      expect(await feed.seqOf(reply)).toBeGreaterThan(await feed.seqOf(message));
      expect(await manager.page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      // Atlas ran in a chat: the item also leads there, at the same step.
      const chatLink = message.getByRole("link", { name: "Chat", exact: true });
      await expect(chatLink).toHaveAttribute("href", /\/w\/demo\/chat\/[0-9a-f-]{36}#step-[0-9a-f-]{36}$/);
      const chatHref = (await chatLink.getAttribute("href"))!;

      await feed.itemLink(message).click();
      await expect(manager.page).toHaveURL(/\/w\/demo\/runs\/[0-9a-f-]{36}#step-[0-9a-f-]{36}$/);
      const run = new RunPage(manager.page);
      await run.waitLoaded("Atlas");
      const step = run.step("chat.send");
      await expect(step).toBeVisible();
      await expect(step).toContainText(said);
      await expect(run.anchoredStep()).toHaveAttribute("id", `step-${new URL(manager.page.url()).hash.slice("#step-".length)}`);
      await expect(step).toHaveAttribute("data-anchored", "");
      await expect(step).toBeInViewport();
      await expect(manager.page.getByRole("link", { name: "Open the chat →" })).toBeVisible();

      // The chat opens at that step too (managers read every chat).
      await manager.page.goto(chatHref);
      const chatStep = new ChatPage(manager.page).step(manager.page.locator("main"), "chat.send");
      await expect(chatStep).toHaveAttribute("data-anchored", "");
      await expect(chatStep).toContainText(said);
      await expect(chatStep).toBeInViewport();

      // Who talks to whom counts both directions.
      await feed.goto("demo");
      await expect(feed.matrixCell("atlas", "scout")).toHaveText(/^[1-9]\d*$/);
      await expect(feed.matrixCell("scout", "atlas")).toHaveText(/^[1-9]\d*$/);
      await feed.matrixRange("24 h");
      await expect(feed.matrix().getByRole("button", { name: "24 h" })).toHaveAttribute("aria-pressed", "true");
      await expect(manager.page).toHaveURL(/range=24h/);
      await expect(feed.matrixCell("atlas", "scout")).toHaveText(/^[1-9]\d*$/);

      // A cell opens that pair's messages in the feed, and only those; the way back is the sender's whole feed.
      const pairCount = Number(await feed.matrixCell("atlas", "scout").textContent());
      await feed.matrixCell("atlas", "scout").getByRole("button").click();
      await expect(manager.page).toHaveURL(/[?&]agent=atlas&to=scout(&|$)/);
      await expect(manager.page.getByTestId("pair-filter")).toContainText("Only what @atlas sent to @scout");
      const rows = feed.list().locator("[data-seq]");
      await expect(rows.first()).toBeVisible();
      // Messages, and work a mission handed from one to the other: nothing else, and nothing another agent sent.
      const kinds = new Set(await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-kind"))));
      expect(kinds.has("agent_message")).toBe(true);
      expect([...kinds].filter((k) => k !== "agent_message" && k !== "mission_handoff")).toEqual([]);
      expect(await rows.count()).toBeGreaterThanOrEqual(Math.min(pairCount, 1));
      await expect(rows.filter({ hasText: "@scout →" })).toHaveCount(0);
      await manager.page.getByRole("button", { name: "Everything of @atlas" }).click();
      await expect(manager.page).toHaveURL(/[?&]agent=atlas(&|$)/);
      await expect(manager.page.getByTestId("pair-filter")).toHaveCount(0);
      await feed.goto("demo");

      // Scout's reply came from a run woken by atlas's message: its timeline says from the start that content from
      // @atlas reached it (a message from another agent is untrusted content).
      await feed.itemLink(reply).click();
      await expect(manager.page).toHaveURL(/\/w\/demo\/runs\/[0-9a-f-]{36}/);
      await new RunPage(manager.page).waitLoaded("Scout");
      await expect(manager.page.locator("span[title]").filter({ hasText: "Read a message from @atlas" }).first()).toBeVisible();
    } finally {
      await manager.context.close();
      await member.context.close();
    }
  });

  test("newest first by default: new items arrive at the top; paused, the view holds and counts them; oldest first on request", async ({ page }) => {
    test.setTimeout(120_000);
    await new SignInPage(page).signInAs(OWNER);
    const postMany = await busyRoom(page);
    const latestSeq = async () => ((await (await page.request.get("/api/feed?limit=1", { headers: DEMO })).json()) as { seq: number }).seq;
    const context = await page.context().browser()!.newContext();
    try {
      const watcher = await context.newPage();
      await new SignInPage(watcher).signInAs(OWNER);
      const feed = new FeedPage(watcher);
      await feed.goto("demo");
      await feed.waitLive();
      await postMany(2, "newest");
      // The top row is the workspace's newest item, and the rows go back in time from there.
      await expect.poll(async () => (await feed.renderedSeqs())[0] === (await latestSeq()), { timeout: 20_000 }).toBe(true);
      await expectContiguous(feed, "newest");
      // A run's start and end are one line: "… run started by a post in a room, succeeded after 1.2 s".
      await expect(feed.item(/^@(scout|atlas) · run started by a post in a room, succeeded after /).first()).toBeVisible();

      // Paused: what is on screen stays, and what arrives is counted.
      await feed.pause();
      const pausedAt = await feed.visibleSeqs();
      const pausedSeq = await latestSeq();
      await postMany(1, "while paused");
      await expect.poll(async () => (await feed.unseen().textContent()) === `${(await latestSeq()) - pausedSeq} new` && (await latestSeq()) >= pausedSeq + 7, { timeout: 20_000 }).toBe(true);
      expect(await feed.visibleSeqs()).toEqual(pausedAt);
      await feed.resume();
      await expect(feed.unseen()).toHaveCount(0);
      await expect.poll(async () => (await feed.visibleSeqs())[0] === (await latestSeq()), { timeout: 20_000 }).toBe(true);

      // Oldest first, kept in the address: the rows go forward in time.
      await watcher.getByRole("combobox", { name: "Order" }).selectOption("oldest");
      await expect(watcher).toHaveURL(/[?&]order=oldest(&|$)/);
      await expectContiguous(feed);
    } finally {
      await context.close();
    }
  });

  test("reattaching after a reload shows no gap and no duplicate while items keep arriving; paused, new items are counted", async ({ page }) => {
    test.setTimeout(120_000);
    await new SignInPage(page).signInAs(OWNER);
    const postMany = await busyRoom(page);

    const context = await page.context().browser()!.newContext();
    try {
      const watcher = await context.newPage();
      await new SignInPage(watcher).signInAs(OWNER);
      const feed = new FeedPage(watcher);
      // Oldest first: the newest items at the bottom, the list following them there.
      await feed.goto("demo", "order=oldest");
      await feed.waitLive();
      const start = await feed.window();

      await postMany(3, "before");
      await expect.poll(async () => (await feed.window()).lastSeq, { timeout: 20_000 }).toBeGreaterThanOrEqual(start.lastSeq + 21);
      const before = await expectContiguous(feed);
      // Nothing before the live part went missing either (an empty feed starts at seq 1).
      expect(before.firstSeq).toBe(start.count > 0 ? start.firstSeq : 1);

      // More arrive while the page reloads: the reload must pick up from the newest items without losing or repeating any.
      const during = postMany(4, "during");
      await watcher.reload();
      await feed.waitLive();
      await during;
      await expect.poll(async () => (await feed.window()).lastSeq, { timeout: 20_000 }).toBeGreaterThanOrEqual(before.lastSeq + 28);
      // And more after the reload, so the reattached stream is what brings them.
      await postMany(2, "after");
      // Wait for the agents to finish, then the feed must end exactly where the workspace's feed does.
      await expect
        .poll(async () => {
          const { seq } = (await (await page.request.get("/api/feed?limit=1", { headers: DEMO })).json()) as { seq: number };
          return (await feed.window()).lastSeq === seq;
        }, { timeout: 20_000 })
        .toBe(true);
      const after = await expectContiguous(feed);
      expect(after.firstSeq).toBeLessThanOrEqual(before.lastSeq);

      // Paused: new items are counted, not scrolled to; resuming shows them.
      // The newest item held when paused (a row may still be just below the fold): everything after it is what the
      // counter must report, and nothing after it is shown.
      const pausedSeq = await feed.pause();
      const pausedAt = await feed.visibleSeqs();
      expect(Math.max(...pausedAt)).toBeLessThanOrEqual(pausedSeq);
      await postMany(1, "paused");
      // Every item that arrived after the pause is counted and none is shown; agents still answering earlier
      // posts may add more, so the count is compared with what the workspace's feed added since the pause.
      await expect
        .poll(
          async () => {
            const { seq } = (await (await page.request.get("/api/feed?limit=1", { headers: DEMO })).json()) as { seq: number };
            const shown = (await feed.unseen().textContent()) ?? "";
            return seq >= pausedSeq + 7 && shown === `${seq - pausedSeq} new`;
          },
          // Seven items come from agents answering a post: on a loaded machine their runs take a while.
          { timeout: 45_000 },
        )
        .toBe(true);
      expect(await feed.visibleSeqs()).toEqual(pausedAt);
      await feed.resume();
      await expect(feed.unseen()).toHaveCount(0);
      await expect(feed.item(/^#busy[a-z0-9]+ · @atlas replied: Thanks Owner, noted in #busy[a-z0-9]+: “paused 0”\.$/)).toBeVisible();
      await expectContiguous(feed);
    } finally {
      await context.close();
    }
  });

  test("a post in a room reaches every member agent, and each one's reply appears", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const rooms = new RoomsPage(page);
    await rooms.goto("demo");
    const name = `ops${stamp()}`;
    await rooms.create({ name, subject: "Deploys and incidents", members: ["scout", "herald", "atlas"] });

    const room = new RoomPage(page);
    await expect(room.members().getByRole("listitem")).toHaveCount(3);
    await room.post("deploy is done");
    await expect(room.from(OWNER.name)).toContainText("deploy is done");
    for (const handle of ["scout", "herald", "atlas"]) {
      await expect(room.from(`@${handle}`)).toContainText(`Thanks Owner, noted in #${name}: “deploy is done”.`, { timeout: 20_000 });
    }
    await expect(room.messages().getByRole("article")).toHaveCount(4);

    // The feed, filtered to the room (the filter is in the address), shows the post and the three replies.
    await page.getByRole("link", { name: "This room in the feed →" }).click();
    await expect(page).toHaveURL(/\/feed\?room=[0-9a-f-]{36}$/);
    const feed = new FeedPage(page);
    await expect(feed.item(new RegExp(`^#${name} · Owner: deploy is done`))).toBeVisible();
    await expect(feed.list().getByRole("article", { name: new RegExp(`^#${name} · @\\w+ replied:`) })).toHaveCount(3);
    await feed.kindToggle("Runs started").click();
    await feed.kindToggle("Runs finished").click();
    await expect(page).toHaveURL(/kind=[a-z_,]+/);
    await expect(feed.list().getByRole("article", { name: /run (started|succeeded)/ })).toHaveCount(0);
    await expect(feed.list().getByRole("article")).toHaveCount(4);
    // "only" keeps one kind; pressed again, every kind is back.
    await feed.kindToggle("Only room posts").click();
    await expect(page).toHaveURL(/[?&]kind=room_post(&|$)/);
    await expect(feed.kindToggle("Only room posts")).toHaveAttribute("aria-pressed", "true");
    await expect(feed.kindToggle("Messages")).toHaveAttribute("aria-pressed", "false");
    await expect(feed.list().getByRole("article")).toHaveCount(4);
    await feed.kindToggle("Only room posts").click();
    await expect(page).not.toHaveURL(/kind=/);
    await expect(feed.list().getByRole("article", { name: /run (started|succeeded)/ }).first()).toBeVisible();
  });

  test("another workspace's feed is refused", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const member = await personWithRole(browser, page, "member");
    // Someone else makes a workspace the member is not in (not the owner, whose workspace list other tests check).
    const founder = await personWithRole(browser, page, "member");
    try {
      const made = await founder.page.request.post("/api/workspaces", { headers: { origin: APP_ORIGIN }, data: { name: `Elsewhere ${stamp()}` } });
      expect(made.status()).toBe(201);
      const other = ((await made.json()) as { workspace: { slug: string } }).workspace.slug;
      const theirs = await founder.page.request.get("/api/feed?limit=1", { headers: { "x-clawdeck-workspace": other } });
      expect(theirs.status()).toBe(200);

      const response = await member.page.goto(`/w/${other}/feed`);
      expect(response?.status()).toBe(404);
      await expect(member.page.getByRole("heading", { name: "World feed" })).toHaveCount(0);

      for (const path of ["/api/feed", "/api/feed/matrix"]) {
        const refused = await member.page.request.get(path, { headers: { "x-clawdeck-workspace": other } });
        expect(refused.status()).toBe(403);
        expect((await refused.json()).code).toBe("forbidden:workspace");
      }
      const stream = await member.page.request.get(`/api/feed/events?workspace=${other}`);
      expect(stream.status()).toBe(403);
      expect((await stream.json()).code).toBe("forbidden:workspace");

      // Their own workspace's feed is there.
      const own = await member.page.request.get("/api/feed?limit=1", { headers: DEMO });
      expect(own.status()).toBe(200);
    } finally {
      await member.context.close();
      await founder.context.close();
    }
  });
});
