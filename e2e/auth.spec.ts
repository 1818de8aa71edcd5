import { expect, test } from "@playwright/test";
import { newPerson, OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { MembersPage } from "./pages/members-page";
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

  test("a session cookie replayed after sign-out is refused by the server", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const saved = await page.context().cookies();
    expect(saved.some((c) => c.name.includes("authjs.session-token"))).toBe(true);
    await new AppShell(page).signOut();

    const replay = await browser.newContext();
    try {
      await replay.addCookies(saved);
      const api = await replay.request.get("/api/agents");
      expect(api.status()).toBe(401);
      const replayPage = await replay.newPage();
      await replayPage.goto("/w/demo");
      await expect(replayPage).toHaveURL(/\/sign-in/);
    } finally {
      await replay.close();
    }
  });

  test("after five wrong passwords the form says to wait, and even the right password is refused", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const person = newPerson("member");
    await new MembersPage(page).goto("demo");
    await new MembersPage(page).add(person);

    const context = await browser.newContext();
    try {
      const theirs = await context.newPage();
      const signIn = new SignInPage(theirs);
      await signIn.goto();
      for (let i = 0; i < 4; i++) {
        await signIn.trySignIn(person.email, `wrong-${i}-password`);
        await expect(signIn.error()).toHaveText("Wrong email or password.");
      }
      await signIn.trySignIn(person.email, "wrong-last-password");
      await expect(signIn.error()).toHaveText(/^Too many attempts, try again in \d+ s\.$/);
      await signIn.trySignIn(person.email, person.password);
      await expect(signIn.error()).toHaveText(/^Too many attempts, try again in \d+ s\.$/);
      await expect(theirs).toHaveURL(/\/sign-in/);
    } finally {
      await context.close();
    }
  });
});
