import { expect, test } from "@playwright/test";
import { APP_ORIGIN, newPerson, OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { MembersPage } from "./pages/members-page";
import { SignInPage } from "./pages/sign-in-page";

test.describe("members and workspaces", () => {
  test("an owner adds a member who can then sign in, but cannot reach Settings → Members", async ({ page, browser }) => {
    const member = newPerson("member");
    await new SignInPage(page).signInAs(OWNER);
    const members = new MembersPage(page);
    await members.goto("demo");
    await members.add(member);
    await expect(members.row(member.email)).toContainText(member.name);

    const memberContext = await browser.newContext();
    try {
      const memberPage = await memberContext.newPage();
      await new SignInPage(memberPage).signInAs(member);
      await expect(memberPage).toHaveURL(/\/w\/demo$/);
      const shell = new AppShell(memberPage);
      await expect(shell.currentUser()).toHaveText(member.name);
      await expect(shell.nav().getByRole("link", { name: "Overview" })).toBeVisible();
      await expect(shell.nav().getByRole("link", { name: "Members" })).toHaveCount(0);

      await new MembersPage(memberPage).goto("demo");
      await expect(memberPage.getByRole("alert").filter({ hasText: "You don't have access" })).toContainText("forbidden:members");
      await expect(memberPage.getByRole("form", { name: "Add a member" })).toHaveCount(0);

      const api = await memberPage.request.get("/api/members");
      expect(api.status()).toBe(403);
      expect((await api.json()).code).toBe("forbidden:role");
    } finally {
      await memberContext.close();
    }
  });

  test("a member cannot open another workspace's pages or API objects", async ({ page, browser }) => {
    const member = newPerson("member");
    await new SignInPage(page).signInAs(OWNER);
    await new MembersPage(page).goto("demo");
    await new MembersPage(page).add(member);

    // The owner makes a second workspace; the switcher now offers both.
    const shell = new AppShell(page);
    await shell.createWorkspace("Skunkworks");
    await expect(page).toHaveURL(/\/w\/skunkworks/);
    await expect(page.getByRole("heading", { name: "Skunkworks" })).toBeVisible();
    await expect(shell.switcher().locator("option")).toHaveText(["Demo", "Skunkworks", "+ New workspace…"]);
    await shell.switcher().selectOption("demo");
    await expect(page).toHaveURL(/\/w\/demo$/);
    const ownerMembers = await page.request.get("/api/members", { headers: { "x-clawdeck-workspace": "skunkworks" } });
    const ownerInSkunkworks = (await ownerMembers.json()).members as { userId: string; email: string }[];
    expect(ownerInSkunkworks.map((m) => m.email)).toEqual([OWNER.email]);

    const memberContext = await browser.newContext();
    try {
      const memberPage = await memberContext.newPage();
      await new SignInPage(memberPage).signInAs(member);
      await expect(new AppShell(memberPage).switcher().locator("option")).toHaveText(["Demo", "+ New workspace…"]);

      const pageResponse = await memberPage.goto("/w/skunkworks");
      expect(pageResponse?.status()).toBe(404);
      await expect(memberPage.getByText("Skunkworks")).toHaveCount(0);
      const settings = await memberPage.goto("/w/skunkworks/settings/members");
      expect(settings?.status()).toBe(404);

      const agents = await memberPage.request.get("/api/agents", { headers: { "x-clawdeck-workspace": "skunkworks" } });
      expect(agents.status()).toBe(403);
      expect((await agents.json()).code).toBe("forbidden:workspace");

      const patch = await memberPage.request.patch(`/api/members/${ownerInSkunkworks[0]!.userId}`, {
        headers: { "x-clawdeck-workspace": "skunkworks", origin: APP_ORIGIN },
        data: { role: "member" },
      });
      expect(patch.status()).toBe(403);
      expect((await patch.json()).code).toBe("forbidden:workspace");
    } finally {
      await memberContext.close();
    }
  });
});
