import { expect, test, type Worker } from "@playwright/test";
import { APP_ORIGIN, OWNER } from "./fixtures";
import { agentAsked, DEMO } from "./asked";
import { ApprovalsPage } from "./pages/approvals-page";
import { SignInPage } from "./pages/sign-in-page";
import { personWithRole } from "./people";

type Shown = { title: string; body: string; actions: { action: string; title: string }[]; data: Record<string, string> };

test("a reviewer's browser receives a push about a waiting request: the notification opens its card, and Approve decides it through the decision route", async ({ page, browser }) => {
  test.setTimeout(150_000);
  await new SignInPage(page).signInAs(OWNER);
  const reviewer = await personWithRole(browser, page, "reviewer");
  try {
    await reviewer.context.grantPermissions(["notifications"], { origin: APP_ORIGIN });
    await reviewer.page.setViewportSize({ width: 390, height: 844 });
    // Turning push on registers the service worker. (This browser has no push service to subscribe with, and says so
    // in words; the push below is delivered the way a push service would hand it to the browser.)
    await reviewer.page.goto("/w/demo/settings/notifications");
    const devices = reviewer.page.getByRole("region", { name: "Push notifications on your devices" });
    await expect(devices).toContainText("No device shows your notifications yet.");
    const workerStarted = reviewer.context.waitForEvent("serviceworker");
    await devices.getByRole("button", { name: "Turn on for this browser" }).click();
    const worker: Worker = await workerStarted;
    expect(new URL(worker.url()).pathname).toBe("/sw.js");
    await expect(devices.getByRole("alert")).toContainText("push service could not be reached");

    const cdp = await reviewer.context.newCDPSession(reviewer.page);
    const registration = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL.startsWith(APP_ORIGIN) && !r.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    const registrationId = await registration;
    // The page is controlled once the worker has claimed it.
    await reviewer.page.reload();
    await expect.poll(() => reviewer.page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);

    const { handle } = await agentAsked(page, "pushed", ["slack #launch the rocket is ready"]);
    const list = async () => ((await (await reviewer.page.request.get("/api/approvals?status=pending", { headers: DEMO })).json()) as { approvals: { id: string; agent: { handle: string } }[] }).approvals;
    await expect.poll(async () => (await list()).some((a) => a.agent.handle === handle), { timeout: 30_000 }).toBe(true);
    const approvalId = (await list()).find((a) => a.agent.handle === handle)!.id;
    const payload = {
      title: `Waiting for you: @${handle} · Post to Slack`,
      body: "the rocket is ready\nFor Owner · 23 hours 59 minutes left",
      url: `/w/demo/approvals?approval=${approvalId}`,
      approvalId,
      workspace: "demo",
      actions: true,
      tag: `approval-${approvalId}`,
    };
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: APP_ORIGIN, registrationId, data: JSON.stringify(payload) });

    type Registration = { getNotifications(): Promise<(Shown & { actions: { action: string; title: string }[] })[]> };
    const shown = (): Promise<Shown[]> =>
      worker.evaluate(async () => {
        const registration = (globalThis as unknown as { registration: Registration }).registration;
        return (await registration.getNotifications()).map((n) => ({ title: n.title, body: n.body, actions: n.actions, data: n.data }));
      });
    await expect.poll(async () => (await shown()).map((n) => n.title)).toEqual([payload.title]);
    const [notification] = await shown();
    expect(notification!.body).toBe(payload.body);
    expect(notification!.actions.map((a) => a.title)).toEqual(["Approve", "Reject…"]);

    // A tap on the notification opens the request's card in the open window.
    await worker.evaluate((data) => (self as unknown as { handleNotificationClick(d: unknown, a: string): Promise<void> }).handleNotificationClick(data, ""), notification!.data);
    await expect(reviewer.page).toHaveURL(new RegExp(`/w/demo/approvals\\?approval=${approvalId}$`));
    const inbox = new ApprovalsPage(reviewer.page);
    await expect(inbox.card(handle)).toHaveAttribute("aria-current", "true");

    // Approve on the notification: decided through the decision route, as the reviewer, from a notification.
    await worker.evaluate((data) => (self as unknown as { handleNotificationClick(d: unknown, a: string): Promise<void> }).handleNotificationClick(data, "approve"), notification!.data);
    await expect.poll(async () => (await shown()).map((n) => [n.title, n.body])).toEqual([["Approved", "The agent goes on."]]);
    const decided = await (await reviewer.page.request.get(`/api/approvals/${approvalId}`, { headers: DEMO })).json();
    expect(decided.approval).toMatchObject({ status: "approved", decidedVia: "push" });
    const history = await inbox.openHistory();
    await expect(history.getByRole("listitem").filter({ hasText: `@${handle}` })).toContainText(`by ${reviewer.person.name} from a notification`);
    await reviewer.page.screenshot({ path: test.info().outputPath("decided-from-a-notification.png") });

    // The reviewer asks the same agent: four eyes refuses their own request from a notification too, and opens its card.
    const session = await reviewer.page.request.post("/api/sessions", { headers: DEMO, data: { agentHandle: handle } });
    const { id: sessionId } = (await session.json()) as { id: string };
    expect((await reviewer.page.request.post(`/api/sessions/${sessionId}/messages`, { headers: DEMO, data: { text: "slack #launch my own request" } })).ok()).toBe(true);
    await expect.poll(async () => (await list()).some((a) => a.agent.handle === handle), { timeout: 30_000 }).toBe(true);
    const ownId = (await list()).find((a) => a.agent.handle === handle)!.id;
    await worker.evaluate((data) => (self as unknown as { handleNotificationClick(d: unknown, a: string): Promise<void> }).handleNotificationClick(data, "approve"), {
      url: `/w/demo/approvals?approval=${ownId}`,
      approvalId: ownId,
      workspace: "demo",
      tag: `approval-${ownId}`,
    });
    await expect.poll(async () => (await shown()).find((n) => n.data.tag === `approval-${ownId}`)?.title).toBe("Not approved");
    expect((await shown()).find((n) => n.data.tag === `approval-${ownId}`)!.body).toBe("This workspace requires someone else to approve actions taken on your behalf, whichever agents they came through.");
    await expect(reviewer.page).toHaveURL(new RegExp(`approval=${ownId}$`));
  } finally {
    await reviewer.context.close();
  }
});
