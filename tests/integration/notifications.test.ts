import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as oneApprovalRoute } from "../../app/api/approvals/[id]/route";
import { GET as deliveriesRoute } from "../../app/api/me/notifications/deliveries/route";
import { GET as prefsRoute, PUT as putPrefsRoute } from "../../app/api/me/notifications/route";
import { PUT as escalationRoute } from "../../app/api/workspace/escalation/route";
import { approvals, budgetAlerts, notifications } from "../../lib/db/schema";
import { deliverBudgetAlerts } from "../../lib/notifications/budget-mail";
import { deliverDue, planNotifications, runNotifications } from "../../lib/notifications/outbox";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { useSmtpServer } from "../support/smtp";
import { approvalSteps } from "../support/approvals";
import { getUsageSummary } from "../../lib/billing/summary";
import { GET as reviewsRoute } from "../../app/api/usage/reviews/route";

const BASE = "https://deck.example.test";
const MIN = 60_000;

describe("reaching reviewers by email: who is told, when, once, and what the message says", () => {
  const env: Record<string, string> = { CLAWDECK_MAIL_FROM: "Clawdeck <deck@example.test>" };
  const smtp = useSmtpServer(env);
  const received = smtp.received;
  beforeEach(() => {
    smtp.refuse = null;
  });
  const server = useTestServer({ env });
  const { chatAs, decide } = approvalSteps(server);
  const to = (person: { email: string }) => received.filter((m) => JSON.stringify(m.to).includes(person.email));

  /** A workspace of its own: an owner, a reviewer, a manager and a member who asks @herald to post. */
  async function team() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `Reach ${Date.now().toString(36)}`, owner);
    const [rita, max, mia] = [await makeUser(s.db, ws.id, "reviewer"), await makeUser(s.db, ws.id, "manager"), await makeUser(s.db, ws.id, "member")];
    const herald = await makeAgent(s.db, ws.id, { model: "offline", tools: ["slack.post"] });
    return { s, ws, owner, rita, max, mia, herald };
  }
  async function ask(t: Awaited<ReturnType<typeof team>>, text: string, by = t.mia) {
    const runId = await chatAs(by, t.ws.id, t.herald.id, text);
    const [approval] = await t.s.db.select().from(approvals).where(eq(approvals.runId, runId));
    return approval!;
  }
  const sweep = (t: { s: ReturnType<typeof server> }, at: number) => runNotifications(t.s.db, t.s.runtime.deps.tools, t.s.channels, BASE, new Date(at));

  it("tells the reviewers at once, the managers after the escalation time, the owners after as long again; reminds at half and nine tenths of the time; each once", async () => {
    const t = await team();
    const approval = await ask(t, "slack #launch the rocket is ready");
    const asked = approval.createdAt.getTime();
    const life = approval.expiresAt.getTime() - asked;

    expect(await sweep(t, asked + 1000)).toMatchObject({ sent: 1, failed: 0 });
    const [first] = to(t.rita);
    expect(first?.subject).toBe(`Waiting for you: @${t.herald.handle} asks to post to Slack (${t.ws.name})`);
    expect(first?.text).toContain(`@${t.herald.handle} asks to do this and waits for a decision.`);
    expect(first?.text).toContain("Channel: #launch");
    expect(first?.text).toContain(`Asked by @${t.herald.handle} for ${t.mia.name}.`);
    expect(first?.text).toContain("No untrusted content reached this run.");
    expect(first?.text).toMatch(/Time left: 23 hours 59 minutes \(until \d\d:\d\d UTC\)\./);
    expect(first?.text?.split("\n")).toContain(`${BASE}/w/${t.ws.slug}/approvals?approval=${approval.id}`);
    expect(first?.text).toContain("The link only opens the request; nothing is decided until you choose in Clawdeck");
    expect([...to(t.max), ...to(t.owner), ...to(t.mia)]).toHaveLength(0);

    // Once: sweeping again at the same moment sends nothing more.
    expect(await sweep(t, asked + 2000)).toMatchObject({ sent: 0 });

    expect(await sweep(t, asked + 15 * MIN + 1000)).toMatchObject({ sent: 1 });
    expect(to(t.max).map((m) => m.subject)).toEqual([`Passed on to you: @${t.herald.handle} asks to post to Slack (${t.ws.name})`]);
    expect(to(t.max)[0]?.text).toContain("Nobody has decided this in 15 minutes, so it is passed on to the managers");
    expect(await sweep(t, asked + 30 * MIN + 1000)).toMatchObject({ sent: 1 });
    expect(to(t.owner)[0]?.text).toContain("passed on to the owners");

    expect(await sweep(t, asked + life / 2 + 1000)).toMatchObject({ sent: 3 });
    for (const person of [t.rita, t.max, t.owner]) expect(to(person).at(-1)?.subject).toMatch(/^Reminder: /);
    expect(to(t.rita).at(-1)?.text).toContain("Still waiting for a decision, with 11 hours 59 minutes left.");
    expect(await sweep(t, asked + life * 0.9 + 1000)).toMatchObject({ sent: 3 });
    expect(to(t.rita).map((m) => m.subject?.split(":")[0])).toEqual(["Waiting for you", "Reminder", "Reminder"]);
    expect(to(t.mia)).toHaveLength(0);

    // The card says who was told, how, why and when.
    const one = await (await oneApprovalRoute(jsonRequest(`/api/approvals/${approval.id}`, { cookie: await sessionCookie(t.s, t.mia), workspace: t.ws.slug }), params({ id: approval.id }))).json();
    const byName = (a: string[], b: string[]) => (a[1] === b[1] ? a[0]!.localeCompare(b[0]!) : 0);
    expect(one.approval.notified.map((n: { name: string; step: string; channel: string; status: string }) => [n.name, n.step, n.channel, n.status]).sort(byName)).toEqual([
      [t.rita.name, "asked", "email", "sent"],
      [t.max.name, "escalated_managers", "email", "sent"],
      [t.owner.name, "escalated_owners", "email", "sent"],
      ...[
        [t.rita.name, "reminder_half", "email", "sent"],
        [t.max.name, "reminder_half", "email", "sent"],
        [t.owner.name, "reminder_half", "email", "sent"],
      ].sort(byName),
      ...[
        [t.rita.name, "reminder_late", "email", "sent"],
        [t.max.name, "reminder_late", "email", "sent"],
        [t.owner.name, "reminder_late", "email", "sent"],
      ].sort(byName),
    ]);
    expect((await decide(t.rita, approval.id, "reject")).status).toBe(200);
  });

  it("four eyes: the person behind a request is never told to decide it; with escalation at 0 every tier is told at once", async () => {
    const t = await team();
    const cookie = await sessionCookie(t.s, t.owner);
    const set = await escalationRoute(jsonRequest("/api/workspace/escalation", { method: "PUT", cookie, workspace: t.ws.slug, body: { escalateAfterMinutes: 0 } }));
    expect(set.status).toBe(200);
    const approval = await ask(t, "slack #general from the reviewer herself", t.rita);
    expect(await sweep(t, approval.createdAt.getTime() + 1000)).toMatchObject({ sent: 2 });
    expect(to(t.rita)).toHaveLength(0);
    expect(to(t.max)[0]?.subject).toMatch(/^Waiting for you: /);
    expect(to(t.owner)[0]?.subject).toMatch(/^Waiting for you: /);
    expect((await decide(t.max, approval.id, "reject")).status).toBe(200);
  });

  it("a person's choices: only some agents, quiet hours in their zone, a digest; a decided request is not sent; bad choices are refused", async () => {
    const t = await team();
    const cookie = await sessionCookie(t.s, t.rita);
    const put = (body: object) => putPrefsRoute(jsonRequest("/api/me/notifications", { method: "PUT", cookie, workspace: t.ws.slug, body }));
    const base = { email: true, push: false, slack: false, digestMinutes: null, quietHours: null, timeZone: null, agents: null, categories: null };
    const read = await (await prefsRoute(jsonRequest("/api/me/notifications", { cookie, workspace: t.ws.slug }))).json();
    expect(read).toEqual({ ...base, available: { email: true, push: true, slack: false }, decides: true });

    for (const bad of [{ ...base, quietHours: { from: "25:00", to: "07:00" } }, { ...base, timeZone: "Mars/Olympus" }, { ...base, digestMinutes: 1 }, { email: true }]) {
      const res = await put(bad);
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("bad_request:body");
    }

    // Another agent only: nothing about @herald reaches Rita, so the managers are the first tier told.
    const other = await makeAgent(t.s.db, t.ws.id, { model: "offline", tools: ["slack.post"] });
    expect((await put({ ...base, agents: [other.id] })).status).toBe(200);
    const a = await ask(t, "slack #one first");
    expect(await sweep(t, a.createdAt.getTime() + 1000)).toMatchObject({ sent: 1 });
    expect(to(t.rita)).toHaveLength(0);
    expect(to(t.max).map((m) => m.subject?.split(":")[0])).toEqual(["Waiting for you"]);
    expect((await decide(t.max, a.id, "reject")).status).toBe(200);

    // Quiet from 22:00 to 07:00 in Tokyo: a request asked at 23:30 there waits for 07:00 there.
    expect((await put({ ...base, quietHours: { from: "22:00", to: "07:00" }, timeZone: "Asia/Tokyo" })).status).toBe(200);
    const b = await ask(t, "slack #two second");
    const lateEvening = Date.parse("2026-12-07T14:30:00Z"); // 23:30 in Tokyo
    await t.s.db.update(approvals).set({ createdAt: new Date(lateEvening), expiresAt: new Date(lateEvening + 24 * 60 * MIN) }).where(eq(approvals.id, b.id));
    expect(await sweep(t, lateEvening + 1000)).toMatchObject({ sent: 0, deferred: 1 });
    const [held] = await t.s.db.select().from(notifications).where(and(eq(notifications.approvalId, b.id), eq(notifications.userId, t.rita.id)));
    expect(held).toMatchObject({ status: "queued", attempts: 0, dueAt: new Date("2026-12-07T22:00:00Z") });
    // At 07:00 in Tokyo it goes (with the managers' and owners' turns, which have come meanwhile).
    await sweep(t, Date.parse("2026-12-07T22:00:01Z"));
    const [sent] = await t.s.db.select().from(notifications).where(eq(notifications.id, held!.id));
    expect(sent).toMatchObject({ status: "sent", sentAt: new Date("2026-12-07T22:00:01Z") });
    expect(to(t.rita)).toHaveLength(1);
    expect((await decide(t.max, b.id, "reject")).status).toBe(200);

    // A digest every 30 minutes: two requests in one message; one decided before then is not in it.
    expect((await put({ ...base, digestMinutes: 30 })).status).toBe(200);
    const [c, d, e] = [await ask(t, "slack #c third"), await ask(t, "slack #d fourth"), await ask(t, "slack #e fifth")];
    const start = Math.max(c.createdAt.getTime(), d.createdAt.getTime(), e.createdAt.getTime());
    expect(await sweep(t, start + 1000)).toMatchObject({ sent: 0, deferred: 3 });
    expect((await decide(t.max, e.id, "reject")).status).toBe(200);
    expect(await deliverDue(t.s.db, t.s.channels, BASE, new Date(start + 31 * MIN))).toMatchObject({ sent: 2, dropped: 1 });
    const digest = to(t.rita).at(-1)!;
    expect(digest.subject).toBe(`2 requests wait for you (${t.ws.name})`);
    expect(digest.text).toContain("Channel: #c");
    expect(digest.text).toContain("Channel: #d");
    expect(digest.text).not.toContain("Channel: #e");
    for (const x of [c, d]) expect((await decide(t.max, x.id, "reject")).status).toBe(200);
  });

  it("a refused send is tried again with a growing wait, then kept as failed with the reason in words; two senders racing send each message once", async () => {
    const t = await team();
    const approval = await ask(t, "slack #retry try again");
    const asked = approval.createdAt.getTime();
    smtp.refuse = t.rita.email;
    await planNotifications(t.s.db, t.s.runtime.deps.tools, t.s.channels, new Date(asked + 1000));
    let at = asked + 1000;
    for (let attempt = 1; attempt <= 5; attempt++) {
      const report = await deliverDue(t.s.db, t.s.channels, BASE, new Date(at));
      expect(report).toMatchObject({ sent: 0, ...(attempt < 5 ? { deferred: 1 } : { failed: 1 }) });
      const [row] = await t.s.db.select().from(notifications).where(eq(notifications.approvalId, approval.id));
      expect(row).toMatchObject({ attempts: attempt, error: "The mail server refused the address.", status: attempt < 5 ? "queued" : "failed" });
      if (attempt < 5) expect(row!.dueAt.getTime() - at).toBe(30_000 * 2 ** (attempt - 1));
      at = row!.dueAt.getTime();
    }
    const deliveries = await (await deliveriesRoute(jsonRequest("/api/me/notifications/deliveries", { cookie: await sessionCookie(t.s, t.rita), workspace: t.ws.slug }))).json();
    expect(deliveries.deliveries[0]).toMatchObject({ approvalId: approval.id, title: "Post to Slack", channel: "email", step: "asked", status: "failed", attempts: 5, error: "The mail server refused the address." });
    smtp.refuse = null;

    // Two senders at once (two instances): the manager's and the owner's messages go once each.
    await planNotifications(t.s.db, t.s.runtime.deps.tools, t.s.channels, new Date(asked + 31 * MIN));
    const reports = await Promise.all([0, 1].map(() => deliverDue(t.s.db, t.s.channels, BASE, new Date(asked + 31 * MIN))));
    expect(reports.reduce((n, r) => n + r.sent, 0)).toBe(2);
    expect(to(t.max)).toHaveLength(1);
    expect(to(t.owner)).toHaveLength(1);
    expect((await decide(t.max, approval.id, "reject")).status).toBe(200);
  });

  it("managers see how long people take to decide, and how many wait longer than the escalation time", async () => {
    const t = await team();
    const [a, b, c, waiting, fresh] = [await ask(t, "slack #a one"), await ask(t, "slack #b two"), await ask(t, "slack #c three"), await ask(t, "slack #d four"), await ask(t, "slack #e five")];
    const now = Date.now();
    // Decided by people after 1, 2 and 10 minutes; one waiting for 20 minutes, one for 5.
    for (const [approval, minutes] of [[a, 1], [b, 2], [c, 10]] as const) {
      await t.s.db
        .update(approvals)
        .set({ status: "approved", decidedByUserId: t.rita.id, createdAt: new Date(now - 30 * MIN), decidedAt: new Date(now - 30 * MIN + minutes * MIN) })
        .where(eq(approvals.id, approval.id));
    }
    await t.s.db.update(approvals).set({ createdAt: new Date(now - 20 * MIN) }).where(eq(approvals.id, waiting.id));
    await t.s.db.update(approvals).set({ createdAt: new Date(now - 5 * MIN) }).where(eq(approvals.id, fresh.id));
    const summary = await getUsageSummary(t.s.db, t.ws.id, { from: new Date(now - 60 * MIN), to: new Date(now + MIN), includeSpend: false, now: new Date(now) });
    expect(summary.activity).toMatchObject({ approvalsPending: 2, approvalsDecided: 3, decisionP50Ms: 2 * MIN, decisionP95Ms: 9.2 * MIN, waitingLong: 1, waitingLongAfterMinutes: 15 });
    // The usage page's table of reviewers: Rita decided three (all approved), in a median of 2 minutes.
    await t.s.db.update(approvals).set({ status: "rejected" }).where(eq(approvals.id, c.id));
    const reviews = await (await reviewsRoute(jsonRequest(`/api/usage/reviews?from=${new Date(now - 60 * MIN).toISOString()}&to=${new Date(now + MIN).toISOString()}`, { cookie: await sessionCookie(t.s, t.max), workspace: t.ws.slug }))).json();
    expect(reviews.reviewers).toEqual([{ userId: t.rita.id, name: t.rita.name, decided: 3, approved: 2, medianMs: 2 * MIN }]);
    const byMember = await reviewsRoute(jsonRequest("/api/usage/reviews", { cookie: await sessionCookie(t.s, t.mia), workspace: t.ws.slug }));
    expect(byMember.status).toBe(403);
    for (const x of [waiting, fresh]) expect((await decide(t.max, x.id, "reject")).status).toBe(200);
  });

  it("managers and owners are emailed once when a budget reaches half, 80 % and all of itself; reviewers and members are not", async () => {
    const t = await team();
    const month = new Date(Date.UTC(2026, 11, 1));
    const alert = (level: "half" | "warning" | "exceeded", spentCredits: number) => ({ workspaceId: t.ws.id, scope: `agent:${t.herald.id}`, month, level, spentCredits, budgetCredits: 5_000_000 });
    await t.s.db.insert(budgetAlerts).values([alert("half", 2_600_000), alert("warning", 4_100_000)]);
    const before = received.length;
    expect(await deliverBudgetAlerts(t.s.db, t.s.channels, BASE)).toBe(2);
    expect(await deliverBudgetAlerts(t.s.db, t.s.channels, BASE)).toBe(0);
    const sent = received.slice(before);
    expect(sent.map((m) => JSON.stringify(m.to)).filter((to) => to.includes(t.max.email) || to.includes(t.owner.email))).toHaveLength(4);
    expect(sent.filter((m) => JSON.stringify(m.to).includes(t.rita.email) || JSON.stringify(m.to).includes(t.mia.email))).toHaveLength(0);
    const half = to(t.max).find((m) => m.subject?.includes("half"));
    expect(half?.subject).toBe(`@${t.herald.handle} has used half of its monthly budget for December 2026 (${t.ws.name})`);
    expect(half?.text).toContain("$2.60 of $5.00 (52 %).");
    expect(half?.text).toContain(`At the whole of @${t.herald.handle}'s budget, its runs stop before their next model call.`);
    expect(half?.text?.split("\n")).toContain(`${BASE}/w/${t.ws.slug}/settings/billing`);
    const [stored] = await t.s.db.select().from(budgetAlerts).where(and(eq(budgetAlerts.workspaceId, t.ws.id), eq(budgetAlerts.level, "half")));
    expect(stored?.notifiedAt).not.toBeNull();
  });
});
