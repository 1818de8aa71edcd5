import { expect, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { SignInPage } from "./pages/sign-in-page";

const GZIP = { "accept-encoding": "gzip" };
const DEMO = { "x-clawdeck-workspace": "demo", origin: APP_ORIGIN };

test.describe("API answers on the wire", () => {
  test("an answer under 1 KB (a result, an error) goes as it is; a larger one is gzipped for a client that accepts it", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);

    const health = await page.request.get("/api/health", { headers: GZIP });
    expect(health.status()).toBe(200);
    expect(health.headers()["content-encoding"]).toBeUndefined();
    expect(health.headers()["cache-control"]).toBe("no-store, no-transform");

    const missing = await page.request.get(`/api/runs/${crypto.randomUUID()}/summary`, { headers: GZIP });
    expect(missing.status()).toBe(404);
    expect(missing.headers()["content-encoding"]).toBeUndefined();
    expect((await missing.json()).code).toBe("not_found:run");

    const systemPrompt = "Answer in short, plain sentences and name your sources. ".repeat(40);
    const made = await page.request.post("/api/agents", {
      headers: DEMO,
      data: { handle: `verbose${Date.now().toString(36)}`, name: "Verbose", model: "offline", tools: [], systemPrompt },
    });
    expect(made.status()).toBe(201);
    expect(made.headers()["content-encoding"]).toBeUndefined();
    const { agent } = (await made.json()) as { agent: { id: string } };
    const detail = await page.request.get(`/api/agents/${agent.id}`, { headers: { ...GZIP, ...DEMO } });
    expect(detail.status()).toBe(200);
    expect((await detail.body()).byteLength).toBeGreaterThan(1024);
    expect(detail.headers()["content-encoding"]).toBe("gzip");
    expect(detail.headers()["cache-control"]).toBe("no-store");
    expect(((await detail.json()) as { agent: { systemPrompt: string } }).agent.systemPrompt).toBe(systemPrompt.trim());
  });
});
