import { expect, type Page } from "@playwright/test";
import { APP_ORIGIN } from "./fixtures";

export const DEMO = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };

/**
 * A fresh offline agent of the demo workspace (handle `prefix` + a stamp) with the given tools, and one chat with it
 * per message, each sent by the signed-in person of `page`: what an agent is asked, set up through the API.
 */
export async function agentAsked(page: Page, prefix: string, texts: string[], tools = ["slack.post"]) {
  const handle = `${prefix}${Date.now().toString(36)}`;
  const agent = await page.request.post("/api/agents", { headers: DEMO, data: { handle, name: prefix, model: "offline", tools, description: "Does what it is told" } });
  expect(agent.status()).toBe(201);
  const sessionIds: string[] = [];
  for (const text of texts) {
    const session = await page.request.post("/api/sessions", { headers: DEMO, data: { agentHandle: handle } });
    expect(session.status()).toBe(201);
    const { id } = (await session.json()) as { id: string };
    expect((await page.request.post(`/api/sessions/${id}/messages`, { headers: DEMO, data: { text } })).ok()).toBe(true);
    sessionIds.push(id);
  }
  return { handle, sessionIds };
}
