import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { SignInPage } from "./pages/sign-in-page";

test.describe("sign-in", () => {
  test("the owner signs in, sees the demo workspace and its agents, and signs out", async ({ page }) => {
    const signIn = new SignInPage(page);
    await signIn.signInAs(OWNER);
    await expect(page).toHaveURL(/\/w\/demo$/);
    await expect(page.getByRole("heading", { name: "Demo" })).toBeVisible();
    for (const handle of ["scout", "herald", "atlas"]) {
      await expect(page.getByRole("article", { name: `Agent ${handle}` })).toBeVisible();
    }
    const shell = new AppShell(page);
    await expect(shell.currentUser()).toHaveText(OWNER.name);
    await shell.signOut();
    await page.goto("/w/demo");
    await expect(page).toHaveURL(/\/sign-in/);
    const api = await page.request.get("/api/agents");
    expect(api.status()).toBe(401);
    expect((await api.json()).code).toBe("unauthorized:session");
  });

  test("a wrong password is refused and no session is created", async ({ page }) => {
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signIn(OWNER.email, "not-the-password");
    await expect(signIn.error()).toHaveText("Wrong email or password.");
    await expect(page).toHaveURL(/\/sign-in/);
    await page.goto("/w/demo");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("an unknown email gets the same answer as a wrong password", async ({ page }) => {
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signIn("nobody@e2e.test", "whatever-password");
    await expect(signIn.error()).toHaveText("Wrong email or password.");
  });
});
