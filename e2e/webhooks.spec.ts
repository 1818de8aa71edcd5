import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { OWNER } from "./fixtures";
import { agentAsked } from "./asked";
import { SignInPage } from "./pages/sign-in-page";

const port = Number(process.env.E2E_PORT ?? 3100) + Number(process.env.TEST_PARALLEL_INDEX ?? 0);
const hooksDir = path.resolve(`.test-data/e2e-${port}-hooks`);
type Hooked = { path: string; headers: Record<string, string>; body: string };
const hooked = (at: string): Hooked[] =>
  fs
    .readdirSync(hooksDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(hooksDir, f), "utf8")) as Hooked)
    .filter((h) => h.path === at);

test("a manager adds a webhook, copies its secret once, and its delivery log shows the signed message the receiver got; an address inside the network is refused in words", async ({ page }) => {
  test.setTimeout(120_000);
  await new SignInPage(page).signInAs(OWNER);
  await page.goto("/w/demo/settings/webhooks");
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "Add a webhook" });

  await form.getByLabel("Address").fill("http://10.20.30.40/hook");
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(form.getByRole("alert")).toContainText("Messages cannot be sent to that address");

  const at = `/ops-${Date.now().toString(36)}`;
  await form.getByLabel("Address").fill(`${fs.readFileSync(path.join(hooksDir, "address"), "utf8")}${at}`);
  await form.getByLabel("What it is for (optional)").fill("The ops bus");
  await expect(form.getByRole("checkbox", { name: "An agent asks for a decision" })).toBeChecked();
  await form.getByRole("button", { name: "Add webhook" }).click();
  const shown = page.getByTestId("webhook-secret");
  await expect(shown).toHaveText(/^whsec_/);
  const secret = (await shown.textContent())!;
  await page.getByRole("button", { name: "I have copied it" }).click();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);

  const { handle } = await agentAsked(page, "hooked", ["slack #launch tell the ops bus"]);
  await expect.poll(() => hooked(at).length, { timeout: 40_000, intervals: [1000] }).toBe(1);
  const [message] = hooked(at);
  const event = new Webhook(secret).verify(message!.body, message!.headers) as { type: string; data: { agent: string; title: string } };
  expect(event).toMatchObject({ type: "approval.requested", data: { agent: handle, title: "Post to Slack" } });

  const endpoint = page.getByTestId("webhook").filter({ hasText: at });
  await expect(endpoint).toContainText("The ops bus");
  await endpoint.getByRole("button", { name: "Deliveries" }).click();
  const delivery = endpoint.getByTestId("webhook-delivery").first();
  await expect(delivery).toContainText("Delivered");
  await expect(delivery).toContainText("An agent asks for a decision");
  await expect(delivery).toContainText("answered 204");
  await delivery.getByRole("button", { name: "Send again" }).click();
  await expect.poll(() => hooked(at).length, { timeout: 40_000, intervals: [1000] }).toBe(2);
  expect(hooked(at)[1]!.headers["webhook-id"]).toBe(message!.headers["webhook-id"]);
  await expect(delivery).toContainText("2 attempts");
  await page.screenshot({ path: test.info().outputPath("webhook-deliveries.png"), fullPage: true });
});
