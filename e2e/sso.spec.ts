import { expect, test } from "@playwright/test";
import { OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { SignInPage } from "./pages/sign-in-page";

// The e2e server configures its own identity provider (`CLAWDECK_OIDC_TEST_…`, "Test SSO"), whose one button signs in
// the owner with a verified email.
test.describe("single sign-on", () => {
  // Next.js names 127.0.0.1 "localhost" in a route's request URL, so the callback would send the provider another
  // redirect URI than the sign-in button did: the app is opened as localhost, the address registered at the provider.
  test.use({ baseURL: `http://localhost:${Number(process.env.E2E_PORT ?? 3100) + Number(process.env.TEST_PARALLEL_INDEX ?? 0)}` });

  test("the owner signs in with the identity provider and lands in the workspace", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const signIn = new SignInPage(page);
    await signIn.goto();
    await expect(signIn.singleSignOn("Test SSO")).toBeVisible();
    await page.screenshot({ path: test.info().outputPath("sign-in-390.png"), fullPage: true });

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn.singleSignOn("Test SSO").click();
    await page.getByRole("button", { name: `Continue as ${OWNER.email}` }).click();
    await expect(page).toHaveURL(/\/w\/demo$/);
    await expect(new AppShell(page).currentUser()).toHaveText(OWNER.name);
  });

  test("a refusal from the provider's way back is said in words", async ({ page }) => {
    const signIn = new SignInPage(page);
    await page.goto("/sign-in?error=sso_no_workspace");
    await expect(signIn.refusal()).toHaveText(/No workspace here has invited your email address/);
  });

  test("an owner's Single sign-on settings read in words on a phone, light and dark", async ({ page }) => {
    const signIn = new SignInPage(page);
    await signIn.signInAs(OWNER);
    await page.setViewportSize({ width: 360, height: 800 });
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto("/w/demo/settings/sso");
      await expect(page.getByRole("heading", { name: "Single sign-on" })).toBeVisible();
      await expect(page.getByText("This server offers sign-in with Test SSO.")).toBeVisible();
      await expect(page.getByRole("checkbox", { name: /Require single sign-on/ })).toBeVisible();
      await page.screenshot({ path: test.info().outputPath(`sso-settings-360-${colorScheme}.png`), fullPage: true });
    }
  });
});
