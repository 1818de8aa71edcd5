import { expect, type Locator, type Page } from "@playwright/test";
import { APP_ORIGIN, newPerson } from "../fixtures";
import { MembersPage } from "./members-page";

const DEMO = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };

/** The pages a person reaches from the navigation, plus one of each detail page. */
export interface Seeded {
  agentId: string;
  handle: string;
  roomId: string;
  sessionId: string;
  runId: string;
  crewId: string;
  missionId: string;
  comparisonId: string;
}

export function mainPages(seeded: Seeded): { name: string; path: string }[] {
  return [
    { name: "overview", path: "/w/demo" },
    { name: "chat", path: "/w/demo/chat" },
    { name: "conversation", path: `/w/demo/chat/${seeded.sessionId}` },
    { name: "approvals", path: "/w/demo/approvals" },
    { name: "usage", path: "/w/demo/usage" },
    { name: "outbox", path: "/w/demo/outbox" },
    { name: "agents", path: "/w/demo/agents" },
    { name: "agent", path: `/w/demo/agents/${seeded.agentId}` },
    { name: "rooms", path: "/w/demo/rooms" },
    { name: "room", path: `/w/demo/rooms/${seeded.roomId}` },
    { name: "feed", path: "/w/demo/feed" },
    { name: "run", path: `/w/demo/runs/${seeded.runId}` },
    { name: "missions", path: "/w/demo/missions" },
    { name: "mission", path: `/w/demo/missions/${seeded.missionId}` },
    { name: "crew editor", path: `/w/demo/missions/crews/${seeded.crewId}` },
    { name: "comparison", path: `/w/demo/missions/compare/${seeded.comparisonId}` },
    { name: "workspace settings", path: "/w/demo/settings/workspace" },
    { name: "members", path: "/w/demo/settings/members" },
    { name: "policy", path: "/w/demo/settings/policy" },
    { name: "billing", path: "/w/demo/settings/billing" },
    { name: "connections", path: "/w/demo/settings/connections" },
    { name: "webhooks", path: "/w/demo/settings/webhooks" },
    { name: "api keys", path: "/w/demo/settings/api-keys" },
    { name: "directory", path: "/w/demo/settings/directory" },
    { name: "single sign-on", path: "/w/demo/settings/sso" },
    { name: "audit log", path: "/w/demo/settings/audit" },
    { name: "notifications", path: "/w/demo/settings/notifications" },
    { name: "account", path: "/w/demo/settings/account" },
  ];
}

/** An agent, a room, and a chat with a finished run (and, if asked, one waiting for approval): enough for every page to show real content. */
export async function seedWorkspace(page: Page, options: { pendingApproval?: boolean } = {}): Promise<Seeded> {
  const handle = `look${Date.now().toString(36)}`;
  const created = await page.request.post("/api/agents", {
    headers: DEMO,
    data: { handle, name: "Lookout", model: "offline", tools: ["http.fetch", "slack.post"], description: "Reads pages and posts summaries" },
  });
  expect(created.status()).toBe(201);
  const agentId = ((await created.json()) as { agent: { id: string } }).agent.id;
  const room = await page.request.post("/api/rooms", { headers: DEMO, data: { name: `ops${Date.now().toString(36)}`, subject: "Daily checks", agentIds: [agentId] } });
  expect(room.status()).toBe(201);
  const roomId = ((await room.json()) as { room: { id: string } }).room.id;
  // A member whose name is as long as the form takes, with no space to break it at: the pages that list people must
  // still fit the screen.
  const members = new MembersPage(page);
  await members.goto("demo");
  await members.add({ ...newPerson("member"), name: "W".repeat(100) });

  await page.goto("/w/demo/chat");
  await page.getByRole("button", { name: new RegExp(`\\(@${handle}\\)$`) }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const sessionId = new URL(page.url()).pathname.split("/").pop()!;
  await page.getByLabel("Message", { exact: true }).fill("hello there");
  await page.getByLabel("Message", { exact: true }).press("Enter");
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toHaveCount(0, { timeout: 20_000 });
  if (options.pendingApproval) {
    // Reading a web page taints the run, so the post after it waits for a reviewer.
    await page.getByLabel("Message", { exact: true }).fill(`fetch ${new URL(page.url()).origin}/sign-in\nslack #general waiting for review`);
    await expect(page.getByRole("button", { name: "Send", exact: true })).toBeEnabled();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(page.getByTestId("approval-pending")).toBeVisible({ timeout: 20_000 });
  }
  // The Stop button can be gone before the message was even sent: wait for the session's run itself.
  let runId: string | null = null;
  await expect
    .poll(
      async () => {
        const session = await page.request.get(`/api/sessions/${sessionId}`, { headers: DEMO });
        expect(session.status()).toBe(200);
        runId = findRunId(await session.json());
        return runId;
      },
      { timeout: 20_000 },
    )
    .not.toBeNull();
  return { agentId, handle, roomId, sessionId, runId: runId!, ...(await seedMissions(page, handle)) };
}

/** A crew of the seeded agent, compared with the demo crew on one goal, judged. */
async function seedMissions(page: Page, handle: string): Promise<{ crewId: string; missionId: string; comparisonId: string }> {
  const crew = await page.request.post("/api/crews", {
    headers: DEMO,
    data: { name: `Solo ${handle}`, nodes: [{ id: "writer", role: "Writer", agentHandle: handle, instructions: "Write it up." }], edges: [] },
  });
  expect(crew.status()).toBe(201);
  const crewId = ((await crew.json()) as { id: string }).id;
  const crews = (await (await page.request.get("/api/crews", { headers: DEMO })).json()) as { crews: { id: string; name: string }[] };
  const demo = crews.crews.find((c) => c.name === "Research and announce")!;
  const started = await page.request.post("/api/comparisons", { headers: DEMO, data: { goal: "Summarise the week", crewIds: [demo.id, crewId] } });
  expect(started.status()).toBe(202);
  const comparisonId = ((await started.json()) as { id: string }).id;
  let missionId = "";
  await expect
    .poll(
      async () => {
        const body = (await (await page.request.get(`/api/comparisons/${comparisonId}`, { headers: DEMO })).json()) as { comparison: { state: string; sides: { mission: { id: string } }[] } };
        missionId = body.comparison.sides[0]!.mission.id;
        return body.comparison.state;
      },
      { timeout: 30_000 },
    )
    .toBe("judged");
  return { crewId, missionId, comparisonId };
}

function findRunId(body: unknown): string | null {
  const { messages } = body as { messages: { run: { id: string } | null }[] };
  return messages.find((m) => m.run)?.run?.id ?? null;
}

/** How far the page scrolls sideways (0 when it fits the viewport). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * The controls and table cells inside `scope` that lie beyond the screen's sides (hidden ones left out): what a
 * person on a phone could only reach by discovering a box that scrolls sideways. Each is named by its label or text.
 */
export async function outsideScreen(scope: Locator): Promise<{ shown: number; outside: string[] }> {
  return scope.locator("input, select, button, td").evaluateAll((elements) => {
    const width = document.documentElement.clientWidth;
    const shown = elements.filter((e) => e.getBoundingClientRect().width > 0);
    const outside = shown.filter((e) => {
      const box = e.getBoundingClientRect();
      return box.left < -0.5 || box.right > width + 0.5;
    });
    const name = (e: Element) => e.getAttribute("aria-label") || (e.textContent ?? "").trim().slice(0, 40) || "(empty)";
    return { shown: shown.length, outside: outside.map((e) => `${e.tagName.toLowerCase()} “${name(e)}”`) };
  });
}
