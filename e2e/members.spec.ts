import { expect, test } from "@playwright/test";
import { APP_ORIGIN, newPerson, OWNER } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { InvitePage } from "./pages/invite-page";
import { MembersPage } from "./pages/members-page";
import { SignInPage } from "./pages/sign-in-page";

test.describe("members and workspaces", () => {
  test("a manager invites, copies the link, and a second browser accepts with its own password and lands in the workspace", async ({
    page,
    browser,
  }) => {
    await new SignInPage(page).signInAs(OWNER);
    const manager = newPerson("manager");
    await new MembersPage(page).goto("demo");
    await new MembersPage(page).add(manager);

    const managerContext = await browser.newContext();
    const memberContext = await browser.newContext();
    try {
      await managerContext.grantPermissions(["clipboard-read", "clipboard-write"]);
      const managerPage = await managerContext.newPage();
      await new SignInPage(managerPage).signInAs(manager);
      const members = new MembersPage(managerPage);
      await members.goto("demo");
      // A manager cannot invite owners: the role is not offered.
      await expect(members.inviteForm().getByLabel("Role").locator("option")).toHaveText(["Manager", "Reviewer", "Member"]);

      const member = newPerson("member");
      const shown = await members.invite(member.email, "member");
      expect(await members.copyLink()).toBe(shown);
      await expect(members.pending(member.email)).toContainText("Member");

      const memberPage = await memberContext.newPage();
      await memberPage.goto(shown);
      const invite = new InvitePage(memberPage);
      await expect(invite.heading()).toHaveText("Join Demo");
      await invite.createAccount(member.name, member.password);
      await expect(memberPage).toHaveURL(/\/w\/demo$/);
      const shell = new AppShell(memberPage);
      await expect(shell.currentUser()).toHaveText(member.name);
      await expect(shell.nav().getByRole("link", { name: "Members" })).toHaveCount(0);

      // The link worked once.
      const again = await browser.newContext();
      try {
        const stranger = await again.newPage();
        await stranger.goto(shown);
        await expect(new InvitePage(stranger).problem()).toContainText("cannot be used");
      } finally {
        await again.close();
      }

      await managerPage.reload();
      await expect(members.row(member.email)).toContainText(member.name);
      await expect(members.pending(member.email)).toHaveCount(0);

      // The new member cannot reach Settings → Members nor invite anyone.
      await new MembersPage(memberPage).goto("demo");
      await expect(memberPage.getByRole("alert").filter({ hasText: "You don't have access" })).toContainText("forbidden:members");
      await expect(memberPage.getByRole("form", { name: "Invite someone" })).toHaveCount(0);
      const api = await memberPage.request.post("/api/invitations", { headers: { origin: APP_ORIGIN }, data: { email: "x@e2e.test", role: "member" } });
      expect(api.status()).toBe(403);
      expect((await api.json()).code).toBe("forbidden:role");
    } finally {
      await managerContext.close();
      await memberContext.close();
    }
  });

  test("the only owner of a workspace is offered neither Remove nor another role, and is told why", async ({ page }) => {
    await new SignInPage(page).signInAs(OWNER);
    const made = await page.request.post("/api/workspaces", { headers: { origin: APP_ORIGIN }, data: { name: `Solo ${Date.now().toString(36)}` } });
    expect(made.status()).toBe(201);
    const { slug } = ((await made.json()) as { workspace: { slug: string } }).workspace;
    const members = new MembersPage(page);
    await members.goto(slug);
    const row = members.row(OWNER.email);
    await expect(row.getByTestId("only-owner")).toHaveText("the only owner: make someone else an owner to change this");
    await expect(row.getByRole("button", { name: "Remove" })).toBeDisabled();
    await expect(row.getByRole("combobox", { name: `Role of ${OWNER.email}` })).toBeDisabled();
    // The demo workspace is the one opened last again, as the other tests expect.
    await members.goto("demo");
    await expect(members.row(OWNER.email)).toBeVisible();
  });

  test("a revoked invitation leaves the pending list and its link no longer works", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const members = new MembersPage(page);
    await members.goto("demo");
    const person = newPerson("member");
    const url = await members.invite(person.email, "reviewer");
    await expect(members.pending(person.email)).toBeVisible();
    await members.pending(person.email).getByRole("button", { name: "Revoke" }).click();
    await expect(members.pending(person.email)).toHaveCount(0);

    const context = await browser.newContext();
    try {
      const invitee = await context.newPage();
      await invitee.goto(url);
      await expect(new InvitePage(invitee).problem()).toContainText("cannot be used");
    } finally {
      await context.close();
    }
  });

  test("inviting an address that is already invited offers a new link in place of the old; the link says who invited whom as what", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const members = new MembersPage(page);
    await members.goto("demo");
    const person = newPerson("member");
    const first = await members.invite(person.email, "member");
    const form = members.inviteForm();
    await form.getByLabel("Email").fill(person.email);
    await form.getByLabel("Role").selectOption("reviewer");
    await form.getByRole("button", { name: "Create invitation link" }).click();
    const exists = form.getByTestId("invitation-exists");
    await expect(exists).toContainText(`${person.email} already has a pending invitation as member, made by ${OWNER.name}.`);
    await exists.getByRole("button", { name: "Make a new link as Reviewer" }).click();
    const link = page.getByLabel("Invitation link");
    await expect(link).not.toHaveValue(first);
    await expect(link).toHaveValue(/\/invite\/[A-Za-z0-9_-]{32,}$/);
    const second = await link.inputValue();
    await expect(members.pending(person.email)).toHaveCount(1);

    const context = await browser.newContext();
    try {
      const invitee = await context.newPage();
      await invitee.goto(first);
      await expect(new InvitePage(invitee).problem()).toContainText("cannot be used");
      await invitee.goto(second);
      await expect(invitee.getByTestId("invitation-from")).toHaveText(`${OWNER.name} invited you to Demo as Reviewer (decides gated agent actions).`);
    } finally {
      await context.close();
    }
  });

  test("a person with an account signs in from the invitation and joins with one click", async ({ page, browser }) => {
    await new SignInPage(page).signInAs(OWNER);
    const shell = new AppShell(page);
    await shell.createWorkspace("Outpost");
    await expect(page).toHaveURL(/\/w\/outpost/);
    const person = newPerson("member");
    await new MembersPage(page).goto("demo");
    await new MembersPage(page).add(person);

    await new MembersPage(page).goto("outpost");
    const url = await new MembersPage(page).invite(`another-address-${person.email}`, "member");

    const context = await browser.newContext();
    try {
      const theirs = await context.newPage();
      await theirs.goto(url);
      await theirs.getByRole("link", { name: "Sign in to join with it" }).click();
      await new SignInPage(theirs).signIn(person.email, person.password);
      await expect(theirs).toHaveURL(/\/invite\//);
      await new InvitePage(theirs).join("Outpost");
      await expect(theirs).toHaveURL(/\/w\/outpost$/);
      // The workspace opened last is where they land next time.
      await theirs.goto("/");
      await expect(theirs).toHaveURL(/\/w\/outpost$/);
    } finally {
      await context.close();
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
    await expect(shell.switcher().locator("option")).toContainText(["Demo", "Skunkworks", "+ New workspace…"]);
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
