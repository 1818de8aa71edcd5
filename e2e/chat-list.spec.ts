import { expect, test, type Page } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

const DEMO = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };

async function agentWith(page: Page, name: string, tools: string[] = []) {
  const handle = `${name.toLowerCase()}${Date.now().toString(36)}`;
  const res = await page.request.post("/api/agents", { headers: DEMO, data: { handle, name, model: "offline", tools } });
  expect(res.status()).toBe(201);
  return { handle, id: ((await res.json()) as { agent: { id: string } }).agent.id };
}

async function chatWith(page: Page, handle: string, text?: string) {
  const session = await page.request.post("/api/sessions", { headers: DEMO, data: { agentHandle: handle } });
  expect(session.status()).toBe(201);
  const { id } = (await session.json()) as { id: string };
  if (text) expect((await page.request.post(`/api/sessions/${id}/messages`, { headers: DEMO, data: { text } })).status()).toBe(202);
  return id;
}

test.beforeEach(async ({ page }) => {
  await new SignInPage(page).signInAs(OWNER);
});

test("a chat is named after its first message, renamed in a dialog, and found by search", async ({ page }) => {
  const { handle } = await agentWith(page, "Namer");
  const word = `quokka${Date.now().toString(36)}`;
  // A word of this test's own, so chats left by an earlier try of it are not found as well.
  const month = `december${Date.now().toString(36)}`;
  const first = await chatWith(page, handle, `Plans for the ${word} launch`);
  const second = await chatWith(page, handle, `Holiday rota for ${month}`);

  await page.goto(`/w/demo/chat/${first}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Plans for the ${word} launch`);
  await page.getByRole("button", { name: "Rename chat" }).click();
  const dialog = page.getByRole("dialog", { name: "Rename chat" });
  await dialog.getByLabel("Title").fill(`Launch ${word}`);
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Launch ${word}`);
  const chats = page.getByRole("navigation", { name: "Chats" });
  await expect(chats.getByRole("link", { name: new RegExp(`Launch ${word}`) })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Launch ${word}`);

  // Search reads titles and messages: the second chat is found by a word only its message has.
  await page.getByRole("searchbox", { name: "Search your chats" }).fill(month.toUpperCase());
  await expect(chats.getByRole("link")).toHaveCount(1);
  await expect(chats.getByRole("link")).toHaveAttribute("href", `/w/demo/chat/${second}`);
  await page.getByRole("searchbox", { name: "Search your chats" }).fill(word);
  await expect(chats.getByRole("link")).toHaveCount(1);
  await expect(chats.getByRole("link")).toHaveAttribute("href", `/w/demo/chat/${first}`);
  await page.getByRole("searchbox", { name: "Search your chats" }).fill(`${word}-nothing`);
  await expect(chats.getByRole("link")).toHaveCount(0);
  await expect(chats).toContainText("None of your chats mention");

  // Deleting asks first, then the chat is gone from the list.
  await page.getByRole("searchbox", { name: "Search your chats" }).fill("");
  await page.goto(`/w/demo/chat/${second}`);
  // A chat whose reply is still being written cannot be deleted: wait until the agent is done.
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeVisible({ timeout: 30_000 });
  await page.getByRole("button", { name: "Delete chat" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete this chat?" });
  await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
  await confirm.getByRole("button", { name: "Delete chat" }).click();
  await expect(page).toHaveURL(/\/w\/demo\/chat$/);
  await expect(page.getByRole("navigation", { name: "Chats" }).locator(`a[href="/w/demo/chat/${second}"]`)).toHaveCount(0);
});

test("waiting for a reviewer is said plainly with Stop waiting; a paused agent shows a banner and a disabled composer", async ({ page }) => {
  const { handle, id: agentId } = await agentWith(page, "Poster", ["slack.post"]);
  const id = await chatWith(page, handle);
  await page.goto(`/w/demo/chat/${id}`);
  const composer = page.getByLabel("Message", { exact: true });
  await composer.fill("slack #general hello team");
  await composer.press("Enter");
  await expect(page.getByTestId("composer-hint")).toContainText("Waiting for someone to decide");
  await expect(page.getByTestId("composer-hint")).not.toContainText("is answering");
  await page.getByRole("button", { name: "Stop waiting" }).click();
  await expect(page.getByTestId("reply-cancelled")).toBeVisible();
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeVisible();

  const paused = await page.request.patch(`/api/agents/${agentId}`, { headers: DEMO, data: { status: "paused" } });
  expect(paused.status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("paused-banner")).toContainText(`@${handle} is paused.`);
  await expect(composer).toBeDisabled();
  await expect(page.getByText(`@${handle} is paused: it does not answer`)).toBeVisible();
  await page.request.patch(`/api/agents/${agentId}`, { headers: DEMO, data: { status: "active" } });
});

test("a chat waiting for a reviewer is deleted with Stop and delete: the reply stops, its request is withdrawn, the chat is gone", async ({ page }) => {
  const { handle } = await agentWith(page, "Waiter", ["slack.post"]);
  const id = await chatWith(page, handle);
  await page.goto(`/w/demo/chat/${id}`);
  const composer = page.getByLabel("Message", { exact: true });
  await composer.fill("slack #general delete me while I wait");
  await composer.press("Enter");
  await expect(page.getByTestId("composer-hint")).toContainText("Waiting for someone to decide");
  const pending = async () =>
    ((await (await page.request.get("/api/approvals?status=all", { headers: DEMO })).json()) as { approvals: { status: string; agent: { handle: string } }[] }).approvals.filter(
      (a) => a.agent.handle === handle,
    );
  expect((await pending()).map((a) => a.status)).toEqual(["pending"]);

  await page.getByRole("button", { name: "Delete chat" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete this chat?" });
  await expect(confirm).toContainText("Its reply is waiting for a reviewer: it is stopped first, and the request is withdrawn.");
  await confirm.getByRole("button", { name: "Stop and delete" }).click();
  await expect(page).toHaveURL(/\/w\/demo\/chat$/);
  await expect(page.getByRole("navigation", { name: "Chats" }).locator(`a[href="/w/demo/chat/${id}"]`)).toHaveCount(0);
  expect((await page.request.get(`/api/sessions/${id}`, { headers: DEMO })).status()).toBe(404);
  // Nothing is left waiting in the inbox: the request went with its chat.
  expect(await pending()).toEqual([]);
});

test("starting a chat again with the same agent before writing anything opens the same chat, from the chat page and from the agent's page", async ({ page }) => {
  const { handle, id: agentId } = await agentWith(page, "Again");
  await page.goto("/w/demo/chat");
  await page.getByRole("button", { name: new RegExp(`\\(@${handle}\\)$`) }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const first = page.url();

  await page.goto("/w/demo/chat");
  await page.getByRole("button", { name: new RegExp(`\\(@${handle}\\)$`) }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  expect(page.url()).toBe(first);
  await page.goto(`/w/demo/agents/${agentId}`);
  await page.getByRole("button", { name: "Chat", exact: true }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  expect(page.url()).toBe(first);

  // Once something was sent in it, starting again makes a new chat.
  await page.getByLabel("Message", { exact: true }).fill("hello");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("hello");
  await page.goto("/w/demo/chat");
  await page.getByRole("button", { name: new RegExp(`\\(@${handle}\\)$`) }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  expect(page.url()).not.toBe(first);
  const listed = (await (await page.request.get("/api/sessions", { headers: DEMO })).json()) as { sessions: { agent: { handle: string }; fresh: boolean }[] };
  expect(listed.sessions.filter((s) => s.agent.handle === handle).map((s) => s.fresh)).toEqual([true, false]);
});

test.describe("the chat page on a phone", () => {
  test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

  test("lists a person's chats above the agents, and the agents first while there are none", async ({ page, browser }) => {
    const { handle } = await agentWith(page, "Listed");
    await chatWith(page, handle, "A chat to find again");
    await page.goto("/w/demo/chat");
    const top = async (p: Page, name: string) => (await p.getByRole(name === "Agents" ? "list" : "complementary", { name }).boundingBox())!.y;
    expect(await top(page, "Your chats")).toBeLessThan(await top(page, "Agents"));

    const member = await personWithRole(browser, page, "member");
    try {
      await member.page.setViewportSize({ width: 360, height: 740 });
      await member.page.goto("/w/demo/chat");
      await expect(member.page.getByRole("complementary", { name: "Your chats" })).toContainText("No chats yet");
      expect(await top(member.page, "Agents")).toBeLessThan(await top(member.page, "Your chats"));
    } finally {
      await member.context.close();
    }
  });
});
