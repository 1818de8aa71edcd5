import { expect, request, test } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { SignInPage } from "./pages/sign-in-page";

test("an owner makes an API key shown once, a script uses it without a password, the audit log filtered to the owner names the key, and revoking it stops the script", async ({ page }) => {
  test.setTimeout(120_000);
  await new SignInPage(page).signInAs(OWNER);
  await page.goto("/w/demo/settings/api-keys");
  await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  const name = `nightly ${Date.now().toString(36)}`;
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Role").selectOption("manager");
  await page.getByRole("button", { name: "Make key" }).click();
  const shown = page.getByTestId("api-key-value");
  await expect(shown).toHaveText(/^ck_[A-Za-z0-9_-]{43}$/);
  const key = (await shown.textContent())!;
  await page.getByRole("button", { name: "I have copied it" }).click();
  await expect(page.getByTestId("api-key-value")).toHaveCount(0);
  const row = page.getByTestId("api-key-row").filter({ hasText: name });
  await expect(row).toContainText("manager · active");
  await expect(row).toContainText("last used never");

  // A script: no cookie, no Origin, only the key.
  const script = await request.newContext({ baseURL: APP_ORIGIN, extraHTTPHeaders: { authorization: `Bearer ${key}` } });
  try {
    const handle = `keyed-${Date.now().toString(36)}`;
    const made = await script.post("/api/agents", { data: { handle, name: "Keyed", model: "offline" } });
    expect(made.status()).toBe(201);
    const minted = await script.post("/api/api-keys", { data: { name: "child", role: "member" } });
    expect([minted.status(), ((await minted.json()) as { code: string }).code]).toEqual([403, "forbidden:api_key_scope"]);

    await page.reload();
    await expect(page.getByTestId("api-key-row").filter({ hasText: name })).not.toContainText("last used never");

    await page.goto("/w/demo/settings/audit");
    const filters = page.getByRole("form", { name: "Filter the audit log" });
    await filters.getByLabel("Person").selectOption({ label: OWNER.name });
    await filters.getByLabel("About").selectOption({ label: "Agents" });
    const entry = page.getByTestId("audit-entry").filter({ hasText: `(with the API key “${name}”) made an agent` });
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText(OWNER.name);
    // Filtered to one person, every entry is theirs.
    for (const text of await page.getByTestId("audit-entry").allTextContents()) expect(text).toContain(OWNER.name);
    await page.screenshot({ path: test.info().outputPath("audit-log-filtered.png"), fullPage: true });

    await page.goto("/w/demo/settings/api-keys");
    const live = page.getByTestId("api-key-row").filter({ hasText: name });
    await live.getByRole("button", { name: "Revoke…" }).click();
    await live.getByRole("button", { name: `Revoke “${name}”` }).click();
    await expect(live).toContainText("revoked");
    await page.screenshot({ path: test.info().outputPath("api-keys.png"), fullPage: true });
    const after = await script.get("/api/agents");
    expect([after.status(), ((await after.json()) as { code: string }).code]).toEqual([401, "unauthorized:api_key"]);
  } finally {
    await script.dispose();
  }
});
