import { expect, type Page } from "@playwright/test";

export class SignInPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/sign-in");
    await expect(this.page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  }

  async signIn(email: string, password: string) {
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  /**
   * Submits the form and waits for the server's answer (so tries never overlap). The form empties its password field
   * once an answer is shown (React resets a form after its action): that happens first, so a new password is not
   * typed into a field about to be emptied.
   */
  async trySignIn(email: string, password: string) {
    await expect(this.page.getByLabel("Password")).toHaveValue("");
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await Promise.all([
      this.page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/sign-in"),
      this.page.getByRole("button", { name: "Sign in", exact: true }).click(),
    ]);
  }

  /** Signs in and waits for the workspace overview. */
  async signInAs(person: { email: string; password: string }) {
    await this.goto();
    await this.signIn(person.email, person.password);
    await expect(this.page).toHaveURL(/\/w\/[a-z0-9-]+$/);
  }

  /** A "Sign in with …" button: off to that identity provider. */
  singleSignOn(label: string) {
    return this.page.getByRole("button", { name: `Sign in with ${label}` });
  }

  /** What the page says when a sign-in was refused or came back from the provider with an error. */
  refusal() {
    return this.page.getByRole("main").getByRole("alert").first();
  }

  error() {
    return this.page.locator("form").getByRole("alert");
  }
}
