import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as agentsRoute } from "../../app/api/agents/route";
import { POST as passwordRoute } from "../../app/api/account/password/route";
import { DELETE as removeMemberRoute } from "../../app/api/members/[userId]/route";
import { authRoute, checkSignIn } from "../../lib/http/auth";
import { resetPassword } from "../../lib/auth/password-change";
import { clientAddress, createSignInThrottle, THROTTLE } from "../../lib/auth/throttle";
import { auditLog, authSessions, rateLimits } from "../../lib/db/schema";
import { verifyCredentials } from "../../lib/workspaces/users";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const BASE = "http://localhost:3000/api/auth";

function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

/** The browser's way through next-auth: fetch a CSRF token, then post the form. */
async function postAuthForm(path: string, fields: Record<string, string>, cookie = "", headers: Record<string, string> = {}) {
  const csrf = await authRoute.GET(new Request(`${BASE}/csrf`, { headers: cookie ? { cookie } : {} }));
  const { csrfToken } = await csrf.json();
  const jar = [cookie, ...cookiesOf(csrf)].filter(Boolean).join("; ");
  return authRoute.POST(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { cookie: jar, "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams({ ...fields, csrfToken, callbackUrl: "/" }),
    }),
  );
}

const signInThroughRoute = (email: string, password: string, headers?: Record<string, string>) =>
  postAuthForm("/callback/credentials", { email, password }, "", headers);

function sessionCookieOf(res: Response): string | undefined {
  return cookiesOf(res).find((c) => c.startsWith("authjs.session-token=") && c.length > "authjs.session-token=".length);
}

describe("sessions and sign-in throttle", () => {
  const server = useTestServer();

  it("signing in through next-auth opens a server-side session; after sign-out the replayed cookie gets 401", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    await makeWorkspace(s.db, "Sign Out", owner);
    const signedIn = await signInThroughRoute(owner.email, "password-123");
    expect(signedIn.status).toBe(302);
    const cookie = sessionCookieOf(signedIn);
    expect(cookie).toBeDefined();
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie }))).status).toBe(200);
    const live = await authRoute.GET(new Request(`${BASE}/session`, { headers: { cookie: cookie! } }));
    expect((await live.json())?.user?.email).toBe(owner.email);

    const out = await postAuthForm("/signout", {}, cookie);
    expect(out.status).toBe(302);
    const replay = await agentsRoute(jsonRequest("/api/agents", { cookie }));
    expect(replay.status).toBe(401);
    expect((await replay.json()).code).toBe("unauthorized:session");
    // The page door (next-auth's session read, which `currentUser` uses) refuses it too.
    const page = await authRoute.GET(new Request(`${BASE}/session`, { headers: { cookie: cookie! } }));
    expect(await page.json()).toBeNull();
    const [row] = await s.db.select().from(authSessions).where(eq(authSessions.userId, owner.id));
    expect(row).toMatchObject({ revokedReason: "sign_out" });
  });

  it("signing out ends only that browser's session", async () => {
    const s = server();
    const person = await makeUser(s.db);
    await makeWorkspace(s.db, "Two Browsers", person);
    const laptop = sessionCookieOf(await signInThroughRoute(person.email, "password-123"));
    const phone = sessionCookieOf(await signInThroughRoute(person.email, "password-123"));
    await postAuthForm("/signout", {}, laptop);
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: laptop }))).status).toBe(401);
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: phone }))).status).toBe(200);
  });

  it("a password reset from the shell ends every session, audits, and the new password works", async () => {
    const s = server();
    const person = await makeUser(s.db);
    await makeWorkspace(s.db, "Reset", person);
    const first = await sessionCookie(s, person);
    const second = sessionCookieOf(await signInThroughRoute(person.email, "password-123"));
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: first }))).status).toBe(200);

    const result = await resetPassword(s.db, person.email, "operator-set-1");
    expect(result).toMatchObject({ endedSessions: 2, generated: undefined });
    for (const cookie of [first, second]) expect((await agentsRoute(jsonRequest("/api/agents", { cookie }))).status).toBe(401);
    expect(await verifyCredentials(s.db, person.email, "password-123")).toBeNull();
    expect(await verifyCredentials(s.db, person.email, "operator-set-1")).not.toBeNull();
    const audit = await s.db.select().from(auditLog).where(and(eq(auditLog.action, "user.password_reset"), eq(auditLog.targetId, person.id)));
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]!.detail)).not.toContain("operator-set-1");

    const generated = await resetPassword(s.db, person.email);
    expect(generated.generated).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await verifyCredentials(s.db, person.email, generated.generated!)).not.toBeNull();
    await expect(resetPassword(s.db, "nobody@test.local")).rejects.toMatchObject({ code: "not_found:user" });
  });

  it("changing one's own password needs the current one, keeps this session and ends the others", async () => {
    const s = server();
    const person = await makeUser(s.db);
    await makeWorkspace(s.db, "Change", person);
    const here = await sessionCookie(s, person);
    const elsewhere = await sessionCookie(s, person);
    const wrong = await passwordRoute(
      jsonRequest("/api/account/password", { method: "POST", cookie: here, body: { currentPassword: "nope-nope", newPassword: "brand-new-pass" } }),
    );
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).code).toBe("forbidden:password");
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: elsewhere }))).status).toBe(200);

    const ok = await passwordRoute(
      jsonRequest("/api/account/password", { method: "POST", cookie: here, body: { currentPassword: "password-123", newPassword: "brand-new-pass" } }),
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ endedSessions: 1 });
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: here }))).status).toBe(200);
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: elsewhere }))).status).toBe(401);
    expect(await verifyCredentials(s.db, person.email, "brand-new-pass")).not.toBeNull();
  });

  it("a removed member's old cookie gets 403 on every route of that workspace", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Leaving", owner);
    const member = await makeUser(s.db, ws.id, "member");
    const cookie = await sessionCookie(s, member);
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie, workspace: ws.slug }))).status).toBe(200);
    const removed = await removeMemberRoute(
      jsonRequest(`/api/members/${member.id}`, { method: "DELETE", cookie: await sessionCookie(s, owner), workspace: ws.slug }),
      params({ userId: member.id }),
    );
    expect(removed.status).toBe(204);
    for (const req of [
      jsonRequest("/api/agents", { cookie, workspace: ws.slug }),
      jsonRequest(`/api/agents?workspace=${ws.slug}`, { cookie }),
      jsonRequest("/api/agents", { cookie: `${cookie}; clawdeck-workspace=${ws.slug}` }),
      jsonRequest("/api/agents", { cookie }),
    ]) {
      const res = await agentsRoute(req);
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("forbidden:workspace");
    }
  });

  it("a NUL or an oversized email at sign-in is a wrong password, never a server error", async () => {
    const s = server();
    const person = await makeUser(s.db);
    for (const email of [`${person.email}\u0000`, `${"x".repeat(400)}@test.local`]) {
      const res = await signInThroughRoute(email, "password-123");
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get("location")).toContain("code=credentials");
      expect(sessionCookieOf(res)).toBeUndefined();
      expect(await checkSignIn(email, "password-123", new Headers())).toEqual({ wrong: true });
    }
  });

  it("after five wrong passwords the right one is refused with 429 and Retry-After, and the lock is in the database", async () => {
    const s = server();
    const person = await makeUser(s.db);
    for (let i = 0; i < THROTTLE.accountAttempts - 1; i++) {
      const res = await signInThroughRoute(person.email, "wrong-password");
      expect(res.headers.get("location")).toContain("code=credentials");
    }
    const locking = await signInThroughRoute(person.email, "wrong-password");
    expect(locking.headers.get("location")).toContain("code=rate_limited");

    const refused = await signInThroughRoute(person.email, "password-123");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(THROTTLE.firstLockSeconds);
    expect((await refused.json()).code).toBe("rate_limited:sign_in");
    expect(sessionCookieOf(refused)).toBeUndefined();

    // The authorize door itself refuses too, without the route's early answer.
    const { handlers } = await import("../../lib/http/auth");
    const csrf = await handlers.GET(new Request(`${BASE}/csrf`) as never);
    const direct = await handlers.POST(
      new Request(`${BASE}/callback/credentials`, {
        method: "POST",
        headers: { cookie: cookiesOf(csrf).join("; "), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: person.email, password: "password-123", csrfToken: (await csrf.json()).csrfToken }),
      }) as never,
    );
    expect(direct.headers.get("location")).toContain("code=rate_limited");
    expect(sessionCookieOf(direct)).toBeUndefined();

    // Another instance (a fresh limiter on the same database) sees the same lock.
    expect(await createSignInThrottle(s.db).retryAfter({ email: person.email })).toBeGreaterThan(0);
    const rows = await s.db.select().from(rateLimits).where(like(rateLimits.key, `%${person.email}`));
    expect(rows.length).toBeGreaterThan(0);
    const audit = await s.db.select().from(auditLog).where(and(eq(auditLog.action, "auth.sign_in_locked"), eq(auditLog.targetId, person.email)));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toMatchObject({ scope: "account", seconds: THROTTLE.firstLockSeconds });
  });

  it("each new lockout of an account lasts twice as long as the one before", async () => {
    const s = server();
    const throttle = createSignInThrottle(s.db);
    const keys = { email: "target@test.local" };
    const lockOnce = async () => {
      let lock = 0;
      for (let i = 0; i < THROTTLE.accountAttempts; i++) lock = await throttle.recordFailure(keys);
      return lock;
    };
    expect(await lockOnce()).toBe(THROTTLE.firstLockSeconds);
    // The lock runs out (moved into the past rather than waited for).
    await s.db.update(rateLimits).set({ expire: new Date(Date.now() - 1000) }).where(eq(rateLimits.key, "sign_in:account:target@test.local"));
    expect(await throttle.retryAfter(keys)).toBe(0);
    expect(await lockOnce()).toBe(THROTTLE.firstLockSeconds * 2);
  });

  it("a successful sign-in resets the account's counter", async () => {
    const s = server();
    const person = await makeUser(s.db);
    const headers = new Headers();
    for (let i = 0; i < THROTTLE.accountAttempts - 1; i++) expect(await checkSignIn(person.email, "wrong-password", headers)).toEqual({ wrong: true });
    expect(await checkSignIn(person.email, "password-123", headers)).toMatchObject({ user: { id: person.id } });
    for (let i = 0; i < THROTTLE.accountAttempts - 1; i++) expect(await checkSignIn(person.email, "wrong-password", headers)).toEqual({ wrong: true });
    expect(await checkSignIn(person.email, "password-123", headers)).toMatchObject({ user: { id: person.id } });
  });

  it("an unknown email is throttled exactly like an existing one", async () => {
    const s = server();
    const person = await makeUser(s.db);
    const headers = new Headers();
    const run = async (email: string) => {
      const answers = [];
      for (let i = 0; i < THROTTLE.accountAttempts + 1; i++) {
        const answer = await checkSignIn(email, "wrong-password", headers);
        answers.push("retryAfter" in answer ? "locked" : "wrong" in answer ? "wrong" : "signed in");
      }
      return answers;
    };
    const known = await run(person.email);
    expect(known.slice(-2)).toEqual(["locked", "locked"]);
    expect(await run("ghost@test.local")).toEqual(known);
  });

  it("with a trusted proxy, one client address guessing across many accounts is locked out", async () => {
    const s = server();
    s.env.CLAWDECK_TRUSTED_PROXIES = 1;
    try {
      const victim = await makeUser(s.db);
      const fromAttacker = new Headers({ "x-forwarded-for": "198.51.100.7, 203.0.113.9" });
      const attacker = clientAddress(fromAttacker, 1);
      expect(attacker).toBe("203.0.113.9");
      for (let i = 0; i < THROTTLE.addressAttempts; i++) await checkSignIn(`spray-${i}@test.local`, "wrong-password", fromAttacker);
      expect(await checkSignIn(victim.email, "password-123", fromAttacker)).toMatchObject({ retryAfter: expect.any(Number) });
      // Someone else, elsewhere, still signs in.
      expect(await checkSignIn(victim.email, "password-123", new Headers({ "x-forwarded-for": "192.0.2.1" }))).toMatchObject({
        user: { id: victim.id },
      });
    } finally {
      s.env.CLAWDECK_TRUSTED_PROXIES = 0;
    }
  });

  it("without a trusted proxy the forwarded address is ignored: a client cannot pick whose address it spends", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "203.0.113.9" }), 0)).toBeNull();
    expect(clientAddress(new Headers({ "x-forwarded-for": "1.1.1.1, 10.0.0.2, 10.0.0.3" }), 2)).toBe("10.0.0.2");
    expect(clientAddress(new Headers({ "x-forwarded-for": "10.0.0.3" }), 2)).toBeNull();
  });
});
