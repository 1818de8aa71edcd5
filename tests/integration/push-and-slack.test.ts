import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as decisionRoute } from "../../app/api/approvals/[id]/decision/route";
import { POST as saveConnectionRoute } from "../../app/api/connections/route";
import { POST as interactionsRoute } from "../../app/api/integrations/slack/interactions/route";
import { GET as browsersRoute, POST as subscribeRoute } from "../../app/api/me/push-subscriptions/route";
import { DELETE as unsubscribeRoute } from "../../app/api/me/push-subscriptions/[id]/route";
import { GET as prefsRoute, PUT as putPrefsRoute } from "../../app/api/me/notifications/route";
import { GET as linkStateRoute, POST as linkRoute } from "../../app/api/me/slack-link/route";
import { GET as oneApprovalRoute } from "../../app/api/approvals/[id]/route";
import { PUT as escalationRoute } from "../../app/api/workspace/escalation/route";
import { approvals, auditLog, notifications, pushSubscriptions } from "../../lib/db/schema";
import { runNotifications } from "../../lib/notifications/outbox";
import { vapidKeys } from "../../lib/notifications/push";
import { slackSignature } from "../../lib/notifications/slack-interactions";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent, settle, getRunRow } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { approvalSteps } from "../support/approvals";
import { usePushService } from "../support/push-service";
import { useSlackStandIn } from "../support/slack";

const BASE = "https://deck.example.test";
const TOKEN = `xoxb-${"1".repeat(12)}-${"a".repeat(24)}`;
const SIGNING_SECRET = crypto.randomBytes(16).toString("hex");

describe("reaching reviewers by web push and in Slack, under the same rules as the inbox", () => {
  const env: Record<string, string> = {};
  const push = usePushService(env);
  const slack = useSlackStandIn(env, TOKEN);
  const server = useTestServer({ env });
  const { chatAs } = approvalSteps(server);

  async function team() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `Reach ${crypto.randomBytes(3).toString("hex")}`, owner);
    const [rita, max, mia] = [await makeUser(s.db, ws.id, "reviewer"), await makeUser(s.db, ws.id, "manager"), await makeUser(s.db, ws.id, "member")];
    const herald = await makeAgent(s.db, ws.id, { model: "offline", tools: ["slack.post"] });
    const as = async (person: { id: string; email: string; name: string }) => ({ cookie: await sessionCookie(s, person), workspace: ws.slug });
    return { s, ws, owner, rita, max, mia, herald, as };
  }
  type Team = Awaited<ReturnType<typeof team>>;
  const sweep = (t: Team, at = Date.now()) => runNotifications(t.s.db, t.s.runtime.deps.tools, t.s.channels, BASE, new Date(at));
  async function ask(t: Team, text: string, by: { id: string }) {
    const runId = await chatAs(by, t.ws.id, t.herald.id, text);
    return (await t.s.db.select().from(approvals).where(eq(approvals.runId, runId)))[0]!;
  }
  async function choose(t: Team, person: Parameters<Team["as"]>[0], channels: { email?: boolean; push?: boolean; slack?: boolean }) {
    const body = { email: false, push: false, slack: false, digestMinutes: null, quietHours: null, timeZone: null, agents: null, categories: null, ...channels };
    const res = await putPrefsRoute(jsonRequest("/api/me/notifications", { method: "PUT", ...(await t.as(person)), body }));
    expect(res.status).toBe(200);
  }

  describe("web push", () => {
    it("sends the request to each browser a reviewer turned on, signed with the server's VAPID key and encrypted for that browser; Approve decides through the decision route, four eyes included", async () => {
      const t = await team();
      const ritaAs = await t.as(t.rita);
      const phone = push.subscribe("rita-phone");
      const bad = await subscribeRoute(jsonRequest("/api/me/push-subscriptions", { method: "POST", ...ritaAs, body: { ...phone, keys: { p256dh: "short", auth: phone.keys.auth } } }));
      expect(bad.status).toBe(400);
      const saved = await subscribeRoute(jsonRequest("/api/me/push-subscriptions", { method: "POST", ...ritaAs, body: { ...phone, label: "Chrome on Android" } }));
      expect(saved.status).toBe(201);
      const listed = await (await browsersRoute(jsonRequest("/api/me/push-subscriptions", ritaAs))).json();
      const keys = await vapidKeys(t.s.db, t.s.secrets.encryptionKey);
      expect(listed).toMatchObject({ publicKey: keys.publicKey, browsers: [{ label: "Chrome on Android", lastSentAt: null }] });
      expect(JSON.stringify(listed)).not.toContain(phone.keys.auth);
      // The server's keys are made once: asking again (another instance) gives the same pair.
      expect(await vapidKeys(t.s.db, t.s.secrets.encryptionKey)).toEqual(keys);

      await choose(t, t.rita, { push: true });
      const prefs = await (await prefsRoute(jsonRequest("/api/me/notifications", ritaAs))).json();
      expect(prefs).toMatchObject({ push: true, email: false, available: { push: true, slack: false } });

      const approval = await ask(t, "slack #launch the rocket is ready", t.mia);
      const before = push.received.length;
      expect(await sweep(t)).toMatchObject({ sent: 1, failed: 0 });
      expect(push.refused).toEqual([]);
      const [got] = push.received.slice(before);
      expect(got!.endpoint).toBe(phone.endpoint);
      expect(got!.vapid).toMatchObject({ aud: push.origin, publicKey: keys.publicKey, sub: "mailto:no-reply@clawdeck.local" });
      expect(got!.urgency).toBe("high");
      expect(got!.ttl).toBeGreaterThan(23 * 3600);
      expect(got!.payload).toEqual({
        title: `Waiting for you: @${t.herald.handle} · Post to Slack`,
        body: expect.stringMatching(new RegExp(`^the rocket is ready\\nFor ${t.mia.name} · 23 hours 59 minutes left$`)),
        url: `/w/${t.ws.slug}/approvals?approval=${approval.id}`,
        approvalId: approval.id,
        workspace: t.ws.slug,
        actions: true,
        tag: `approval-${approval.id}`,
      });

      // What the service worker's Approve sends: the decision route, as Rita, marked as decided from a notification.
      const decided = await decisionRoute(
        jsonRequest(`/api/approvals/${approval.id}/decision?workspace=${t.ws.slug}`, { method: "POST", cookie: ritaAs.cookie, body: { decision: "approve", via: "push" } }),
        params({ id: approval.id }),
      );
      expect(decided.status).toBe(200);
      const [row] = await t.s.db.select().from(approvals).where(eq(approvals.id, approval.id));
      expect(row).toMatchObject({ status: "approved", decidedByUserId: t.rita.id, decidedVia: "push" });
      await settle(async () => (await getRunRow(t.s.db, approval.runId)).state === "succeeded");
      // A browser may not claim the decision came from Slack.
      const claim = await decisionRoute(
        jsonRequest(`/api/approvals/${approval.id}/decision`, { method: "POST", ...ritaAs, body: { decision: "approve", via: "slack" } }),
        params({ id: approval.id }),
      );
      expect(claim.status).toBe(400);

      // Four eyes holds from a notification too: Rita's own request is not hers to approve.
      const own = await ask(t, "slack #launch my own request", t.rita);
      const refused = await decisionRoute(jsonRequest(`/api/approvals/${own.id}/decision`, { method: "POST", ...ritaAs, body: { decision: "approve", via: "push" } }), params({ id: own.id }));
      expect(refused.status).toBe(403);
      expect((await refused.json()).code).toBe("forbidden:four_eyes");
    });

    it("forgets a browser its push service says is gone, says why nothing reached the person, and lets a person remove only their own browsers", async () => {
      const t = await team();
      const ritaAs = await t.as(t.rita);
      const laptop = push.subscribe("rita-laptop");
      const saved = await (await subscribeRoute(jsonRequest("/api/me/push-subscriptions", { method: "POST", ...ritaAs, body: laptop }))).json();
      await choose(t, t.rita, { push: true });
      push.gone.add(laptop.endpoint);
      await ask(t, "slack #ops deploy", t.mia);
      expect(await sweep(t)).toMatchObject({ sent: 0, failed: 0, deferred: 1 });
      expect(await t.s.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, laptop.endpoint))).toEqual([]);
      const [row] = await t.s.db.select().from(notifications).where(and(eq(notifications.userId, t.rita.id), eq(notifications.channel, "push")));
      expect(row!.error).toBe("Not delivered: A browser is no longer subscribed (it was removed).");

      const other = push.subscribe("max-phone");
      const maxs = await (await subscribeRoute(jsonRequest("/api/me/push-subscriptions", { method: "POST", ...(await t.as(t.max)), body: other }))).json();
      const notHers = await unsubscribeRoute(jsonRequest(`/api/me/push-subscriptions/${maxs.browser.id}`, { method: "DELETE", ...ritaAs }), params({ id: maxs.browser.id }));
      expect(notHers.status).toBe(404);
      expect((await notHers.json()).code).toBe("not_found:push_subscription");
      expect(saved.browser.id).toBeTruthy();
    });
  });

  describe("Slack", () => {
    /** Slack's interaction request: the form-encoded payload, signed as Slack signs it (or as told). */
    function interaction(payload: Record<string, unknown>, sign: { secret?: string; at?: number; signature?: string | null } = {}) {
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const ts = String(Math.floor((sign.at ?? Date.now()) / 1000));
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": ts };
      const signature = sign.signature === undefined ? slackSignature(sign.secret ?? SIGNING_SECRET, ts, body) : sign.signature;
      if (signature) headers["x-slack-signature"] = signature;
      return new Request("http://localhost:3000/api/integrations/slack/interactions", { method: "POST", headers, body });
    }
    const press = (user: string, action: string, value: string, extra: Record<string, unknown> = {}) => ({
      type: "block_actions",
      user: { id: user },
      channel: { id: `D${user.slice(1)}` },
      trigger_id: `trigger-${crypto.randomBytes(3).toString("hex")}`,
      actions: [{ action_id: action, value }],
      ...extra,
    });
    const send = (req: Request) => interactionsRoute(req);

    /** A team whose workspace connected its Slack app, with Rita and Max linked (through the button in Slack). */
    async function slackTeam() {
      const t = await team();
      const ownerAs = await t.as(t.owner);
      const badSecret = await saveConnectionRoute(jsonRequest("/api/connections", { method: "POST", ...ownerAs, body: { provider: "slack", secret: TOKEN, signingSecret: "not-hex" } }));
      expect(badSecret.status).toBe(422);
      expect((await badSecret.json()).code).toBe("unprocessable:connection_signing_secret");
      // A signing secret alone needs a token already saved; then it is added without asking for the token again.
      const alone = await saveConnectionRoute(jsonRequest("/api/connections", { method: "POST", ...ownerAs, body: { provider: "slack", signingSecret: SIGNING_SECRET } }));
      expect(alone.status).toBe(422);
      expect((await alone.json()).code).toBe("unprocessable:connection_secret");
      const tokenOnly = await saveConnectionRoute(jsonRequest("/api/connections", { method: "POST", ...ownerAs, body: { provider: "slack", secret: TOKEN } }));
      expect((await tokenOnly.json()).connection).toMatchObject({ hasSigningSecret: false });
      const saved = await saveConnectionRoute(jsonRequest("/api/connections", { method: "POST", ...ownerAs, body: { provider: "slack", signingSecret: SIGNING_SECRET } }));
      expect(saved.status).toBe(201);
      expect((await saved.clone().json()).connection).toMatchObject({ hasSigningSecret: true });
      expect(JSON.stringify(await saved.json())).not.toContain(SIGNING_SECRET);
      const ids = { rita: `U${crypto.randomBytes(4).toString("hex").toUpperCase()}`, max: `U${crypto.randomBytes(4).toString("hex").toUpperCase()}`, owner: `U${crypto.randomBytes(4).toString("hex").toUpperCase()}` };
      slack.members.set(t.rita.email, ids.rita);
      for (const [person, id] of [
        [t.rita, ids.rita],
        [t.max, ids.max],
        [t.owner, ids.owner],
      ] as const) {
        const personAs = await t.as(person);
        // Rita is found by her email address; the others give their member ID.
        const started = await linkRoute(jsonRequest("/api/me/slack-link", { method: "POST", ...personAs, body: person === t.rita ? {} : { slackUserId: id } }));
        expect(started.status).toBe(200);
        expect((await started.json()).link).toMatchObject({ status: "pending", slackUserId: id });
        const dm = slack.messages.filter((m) => m.channel === `D${id.slice(1)}`).at(-1)!;
        expect(dm.text).toContain(`Link this Slack account to ${person.name} (${person.email})`);
        const code = ((dm.blocks[1] as { elements: { value: string }[] }).elements[0]!).value;
        // Someone else pressing the button (or a made-up code) links nothing.
        expect((await send(interaction(press("UINTRUDER1", "slack.link", code)))).status).toBe(200);
        expect((await send(interaction(press(id, "slack.link", "guessed-code")))).status).toBe(200);
        expect((await (await linkStateRoute(jsonRequest("/api/me/slack-link", personAs))).json()).link.status).toBe("pending");
        expect((await send(interaction(press(id, "slack.link", code)))).status).toBe(200);
        expect((await (await linkStateRoute(jsonRequest("/api/me/slack-link", personAs))).json()).link).toMatchObject({ status: "linked", slackUserId: id });
        await choose(t, person, { slack: true });
      }
      return { ...t, ids };
    }
    const dmOf = (id: string, approvalId: string) => slack.messages.filter((m) => m.channel === `D${id.slice(1)}` && JSON.stringify(m.versions[0]!.blocks).includes(approvalId));

    it("posts a request to each linked reviewer with Approve, Reject and Open; Approve in Slack decides as that person under four eyes, and every message about it is updated", async () => {
      const t = await slackTeam();
      await escalationRoute(jsonRequest("/api/workspace/escalation", { method: "PUT", ...(await t.as(t.owner)), body: { escalateAfterMinutes: 0 } }));
      const approval = await ask(t, "slack #launch go for launch", t.max);
      expect(await sweep(t)).toMatchObject({ sent: 2, failed: 0 });
      // Max asked, so four eyes keeps it from him: Rita and the owner are told.
      expect(dmOf(t.ids.max, approval.id)).toHaveLength(0);
      const [ritas] = dmOf(t.ids.rita, approval.id);
      const [owners] = dmOf(t.ids.owner, approval.id);
      expect(ritas!.text).toBe(`@${t.herald.handle} asks to post to Slack (${t.ws.name})`);
      const shown = JSON.stringify(ritas!.blocks);
      expect(shown).toContain("*Post to Slack*");
      expect(shown).toContain("Channel: #launch");
      expect(shown).toContain(`Asked by @${t.herald.handle} for ${t.max.name}.`);
      expect(shown).toContain("No untrusted content reached this run.");
      expect(shown).toMatch(/Time left: 23 hours 59 minutes/);
      const actions = ritas!.blocks.find((b) => b.type === "actions") as { elements: { action_id: string; value?: string; url?: string; text: { text: string } }[] };
      expect(actions.elements.map((e) => [e.action_id, e.text.text])).toEqual([
        ["approval.approve", "Approve"],
        ["approval.reject", "Reject…"],
        ["approval.open", "Open (to edit first)"],
      ]);
      expect(actions.elements[2]!.url).toBe(`${BASE}/w/${t.ws.slug}/approvals?approval=${approval.id}`);

      // Max presses Approve on a message (forwarded, say): four eyes refuses, in words, and it is audited.
      expect((await send(interaction(press(t.ids.max, "approval.approve", approval.id)))).status).toBe(200);
      expect(slack.ephemeral.at(-1)).toMatchObject({ user: t.ids.max, text: expect.stringMatching(/^Not approved: .*second person|^Not approved: .*someone else/i) });
      const refusals = await t.s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, t.ws.id), eq(auditLog.action, "slack.decision_refused")));
      expect(refusals.map((r) => r.detail)).toEqual([{ decision: "approve", code: "forbidden:four_eyes" }]);
      expect((await t.s.db.select().from(approvals).where(eq(approvals.id, approval.id)))[0]!.status).toBe("pending");

      // Rita approves in Slack: decided as Rita, via Slack; the run goes on; both messages now say so.
      const approveReq = interaction(press(t.ids.rita, "approval.approve", approval.id));
      const replay = approveReq.clone();
      expect((await send(approveReq)).status).toBe(200);
      const [row] = await t.s.db.select().from(approvals).where(eq(approvals.id, approval.id));
      expect(row).toMatchObject({ status: "approved", decidedByUserId: t.rita.id, decidedVia: "slack" });
      await settle(async () => (await getRunRow(t.s.db, approval.runId)).state === "succeeded");
      for (const message of [ritas!, owners!]) {
        expect(message.versions).toHaveLength(2);
        expect(JSON.stringify(message.blocks)).toMatch(new RegExp(`Approved by ${t.rita.name} in Slack at \\d\\d:\\d\\d UTC\\.`));
        expect(JSON.stringify(message.blocks)).not.toContain("approval.approve");
      }
      // The same signed request again is a replay: refused, audited, nothing decided twice.
      const again = await send(replay);
      expect(again.status).toBe(409);
      expect((await again.json()).code).toBe("conflict:slack_replay");
      expect(await t.s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, t.ws.id), eq(auditLog.action, "slack.replay_refused")))).toHaveLength(1);
    });

    it("Reject asks for the reason in a modal and decides on its submission; a decision in the app updates the Slack messages too", async () => {
      const t = await slackTeam();
      const first = await ask(t, "slack #ops restart the cluster", t.mia);
      const second = await ask(t, "slack #ops tell everyone", t.mia);
      await sweep(t);
      const [ritas] = dmOf(t.ids.rita, first.id);
      expect((await send(interaction(press(t.ids.rita, "approval.reject", first.id)))).status).toBe(200);
      const view = slack.views.at(-1)!;
      expect(view.view).toMatchObject({ callback_id: "approval.reject_reason", private_metadata: first.id, title: { text: "Reject the request" } });
      const submission = (reason: string) => ({
        type: "view_submission",
        user: { id: t.ids.rita },
        view: { callback_id: "approval.reject_reason", private_metadata: first.id, state: { values: { reason: { reason: { type: "plain_text_input", value: reason } } } } },
      });
      // A blank reason is refused under its field (a rejection must say why).
      const blank = await send(interaction(submission("   ")));
      expect(await blank.json()).toMatchObject({ response_action: "errors", errors: { reason: expect.stringContaining("Say why") } });
      const ok = await send(interaction(submission("Not during the freeze")));
      expect(ok.status).toBe(200);
      expect((await t.s.db.select().from(approvals).where(eq(approvals.id, first.id)))[0]).toMatchObject({ status: "rejected", reason: "Not during the freeze", decidedVia: "slack" });
      expect(JSON.stringify(ritas!.blocks)).toContain(`Rejected by ${t.rita.name} in Slack at`);
      expect(JSON.stringify(ritas!.blocks)).toContain("“Not during the freeze”");

      // Decided in the app: the next sweep brings every Slack message about it up to date.
      const decided = await decisionRoute(jsonRequest(`/api/approvals/${second.id}/decision`, { method: "POST", ...(await t.as(t.owner)), body: { decision: "approve" } }), params({ id: second.id }));
      expect(decided.status).toBe(200);
      await sweep(t);
      for (const message of dmOf(t.ids.rita, second.id)) expect(JSON.stringify(message.blocks)).toContain(`Approved by ${t.owner.name} in the inbox at`);
      expect(dmOf(t.ids.rita, second.id)).toHaveLength(1);
    });

    it("posts each request once to the workspace's chosen channel, for all to see, with Open but no buttons that decide; the card names the channel, and the post is updated when decided", async () => {
      const t = await slackTeam();
      const ownerAs = await t.as(t.owner);
      const bad = await escalationRoute(jsonRequest("/api/workspace/escalation", { method: "PUT", ...ownerAs, body: { escalateAfterMinutes: 15, slackChannel: "not a channel!" } }));
      expect(bad.status).toBe(400);
      const set = await escalationRoute(jsonRequest("/api/workspace/escalation", { method: "PUT", ...ownerAs, body: { escalateAfterMinutes: 15, slackChannel: "Approvals" } }));
      expect(await set.json()).toEqual({ escalateAfterMinutes: 15, slackChannel: "#approvals" });
      const notAllowed = await escalationRoute(jsonRequest("/api/workspace/escalation", { method: "PUT", ...(await t.as(t.rita)), body: { escalateAfterMinutes: 15, slackChannel: null } }));
      expect(notAllowed.status).toBe(403);

      const approval = await ask(t, "slack #launch shared with the channel", t.mia);
      await sweep(t);
      await sweep(t);
      const posts = slack.messages.filter((m) => m.channel === "#approvals" && JSON.stringify(m.versions[0]!.blocks).includes(approval.id));
      expect(posts).toHaveLength(1);
      const shown = JSON.stringify(posts[0]!.blocks);
      expect(shown).toContain("*Post to Slack*");
      expect(shown).toContain("The people who may decide it are asked in their direct messages from this app, and in Clawdeck.");
      expect(shown).not.toContain("approval.approve");
      expect(shown).not.toContain("approval.reject");
      expect(shown).toContain(`${BASE}/w/${t.ws.slug}/approvals?approval=${approval.id}`);
      // Rita's direct message still has the buttons.
      expect(JSON.stringify(dmOf(t.ids.rita, approval.id)[0]!.blocks)).toContain("approval.approve");

      const one = await (await oneApprovalRoute(jsonRequest(`/api/approvals/${approval.id}`, await t.as(t.rita)), params({ id: approval.id }))).json();
      expect(one.approval.notified.map((n: { name: string; channel: string; userId: string | null }) => [n.name, n.channel, n.userId === null])).toEqual(
        expect.arrayContaining([
          ["#approvals", "slack", true],
          [t.rita.name, "slack", false],
        ]),
      );

      expect((await send(interaction(press(t.ids.rita, "approval.approve", approval.id)))).status).toBe(200);
      expect(JSON.stringify(posts[0]!.blocks)).toContain(`Approved by ${t.rita.name} in Slack at`);
    });

    it("refuses requests Slack did not sign: missing, wrong, or more than five minutes old (401), each audited; a person without a link decides nothing", async () => {
      const t = await slackTeam();
      const approval = await ask(t, "slack #launch forged", t.mia);
      const forged = [
        interaction(press(t.ids.rita, "approval.approve", approval.id), { signature: null }),
        interaction(press(t.ids.rita, "approval.approve", approval.id), { secret: crypto.randomBytes(16).toString("hex") }),
        interaction(press(t.ids.rita, "approval.approve", approval.id), { at: Date.now() - 6 * 60_000 }),
        interaction(press(t.ids.rita, "approval.approve", approval.id), { signature: "v0=" + "0".repeat(64) }),
      ];
      for (const req of forged) {
        const res = await send(req);
        expect(res.status).toBe(401);
        expect((await res.json()).code).toBe("unauthorized:slack_signature");
      }
      const audited = await t.s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, t.ws.id), eq(auditLog.action, "slack.request_refused"))).orderBy(auditLog.id);
      // Each kind once a minute at most (anyone can send these), with the count since: a flood cannot fill the log.
      expect(audited.map((a) => a.detail)).toEqual([
        { why: "the request has no Slack signature", refused: 1 },
        { why: "the signature does not match any connected Slack app", refused: 1 },
        { why: "the signature is more than five minutes old", refused: 1 },
      ]);
      // Signed by Slack, but from a Slack user nobody linked: nothing decided, told how to link.
      expect((await send(interaction(press("UNOBODY123", "approval.approve", approval.id)))).status).toBe(200);
      expect(slack.ephemeral.at(-1)!.text).toContain("not linked to a Clawdeck account");
      expect((await t.s.db.select().from(approvals).where(eq(approvals.id, approval.id)))[0]!.status).toBe("pending");
    });
  });
});
