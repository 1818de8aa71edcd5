import http from "node:http";
import type { AddressInfo } from "node:net";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { steps } from "../../lib/db/schema";
import { createScriptedModel, textTurn, toolTurn } from "../../lib/models/scripted";
import { CircuitBreakers } from "../../lib/safety/dispatch";
import { createChat } from "../../lib/chats/chats";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent, routeModel, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

/** A local site: `/broken` drops the connection (a real failure), anything else is a page. */
async function site() {
  const server = http.createServer((req, res) => {
    if (req.url === "/broken") return req.socket.destroy();
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html><head><title>Status</title></head><body>All good.</body></html>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("circuit breakers in the runtime", () => {
  const server = useTestServer();
  let flaky: Awaited<ReturnType<typeof site>>;
  let steady: Awaited<ReturnType<typeof site>>;
  let previousBreakers: CircuitBreakers;

  beforeAll(async () => {
    flaky = await site();
    steady = await site();
    server().runtime.deps.fetchAllow = [flaky.host, steady.host];
    previousBreakers = server().runtime.deps.breakers;
    // Two failures in a row open a breaker for a minute.
    server().runtime.deps.breakers = new CircuitBreakers(2, 60_000);
  });
  afterAll(async () => {
    server().runtime.deps.fetchAllow = [];
    server().runtime.deps.breakers = previousBreakers;
    await Promise.all([flaky, steady].map(({ server: s }) => new Promise((resolve) => s.close(resolve))));
  });

  /** Runs one chat turn in which the agent fetches the URLs in order; returns each fetch step's status and error. */
  async function fetchAs(person: { id: string; workspaceId: string }, urls: string[]) {
    const s = server();
    routeModel(s, "scripted", createScriptedModel([toolTurn(urls.map((url, i) => ({ id: `f${i}`, name: "http.fetch", input: { url } }))), textTurn(["done"])]));
    const agent = await makeAgent(s.db, person.workspaceId, { tools: ["http.fetch"] });
    const session = await createChat(s.db, { workspaceId: person.workspaceId, userId: person.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: person.workspaceId, sessionId: session.id, userId: person.id, text: "fetch" });
    await waitForRun(s.db, runId);
    const rows = await s.db.select({ status: steps.status, error: steps.error }).from(steps).where(eq(steps.runId, runId)).orderBy(asc(steps.position));
    return rows;
  }

  it("workspace A's failing fetches pause A's fetches to that host only: B still fetches the same host, A still fetches another host", async () => {
    const s = server();
    const a = await demoOwner(s.db);
    const bUser = await makeUser(s.db);
    const b = { id: bUser.id, workspaceId: (await makeWorkspace(s.db, "Breaker B", bUser)).id };

    const first = await fetchAs(a, [`http://${flaky.host}/broken`, `http://${flaky.host}/broken`, `http://${flaky.host}/`]);
    expect(first.map((r) => r.status)).toEqual(["failed", "failed", "refused"]);
    expect(first[2]!.error).toBe(`\`http.fetch\` to ${flaky.host} failed 2 times in a row; it is paused for 60 s.`);

    const other = await fetchAs(b, [`http://${flaky.host}/`]);
    expect(other).toEqual([{ status: "succeeded", error: null }]);

    const again = await fetchAs(a, [`http://${steady.host}/`, `http://${flaky.host}/`]);
    expect(again.map((r) => r.status)).toEqual(["succeeded", "refused"]);
  });

  it("fetches refused by rule (a private address nobody allowed) or with invalid input never open a breaker: 3 + 2 of them, every breaker still closed", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const blocked = "10.1.2.3:8080";
    const refused = await fetchAs(owner, [...[1, 2, 3].map((n) => `http://${blocked}/${n}`), "ftp://example.com/a", "ftp://example.com/b"]);
    expect(refused.map((r) => r.status)).toEqual(["failed", "failed", "failed", "failed", "failed"]);
    expect(refused[0]!.error).toMatch(/^Refused to fetch http:\/\/10\.1\.2\.3:8080\/1: 10\.1\.2\.3 is a private/);
    expect(refused[3]!.error).toBe("Invalid input for `http.fetch`: url must be an absolute http:// or https:// URL");
    for (const destination of [blocked, "example.com", null]) {
      expect(s.runtime.deps.breakers.stateOf({ workspaceId: owner.workspaceId, tool: "http.fetch", destination })).toBe("closed");
    }
  });
});
