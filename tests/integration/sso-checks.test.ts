import { describe, expect, it } from "vitest";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { atProvider, finishAtApp, signInError, signInThroughProvider, startProviderSignIn, type Landing } from "../support/sso";
import { countSessions, identitiesOf, PROVIDER, subject, useSsoServer } from "../support/sso-server";

/** Refused, on our sign-in page, with no session made. */
async function expectRefused(count: () => Promise<number>, landing: Landing, before: number) {
  expect(signInError(landing)).not.toBeNull();
  expect(landing.session).toBeUndefined();
  expect(await count()).toBe(before);
}

describe("signing in through an identity provider: what next-auth checks stays checked", () => {
  const { server, idp, other } = useSsoServer();

  /** A person the provider will sign in, and a way to count sessions. */
  async function setUp() {
    const s = server();
    const owner = await makeUser(s.db);
    await makeWorkspace(s.db, "Checks", owner);
    const sub = subject();
    idp().signInAs({ sub, email: owner.email, email_verified: true });
    return { s, owner, sub, count: () => countSessions(s.db) };
  }

  /** The way to the provider and back, with the ID token the token endpoint hands out changed first. */
  async function withIdToken(change: () => void) {
    change();
    return signInThroughProvider(PROVIDER);
  }

  it("the untouched flow signs in (authorization code with PKCE, state and nonce)", async () => {
    const { count } = await setUp();
    const { jar, authorizeUrl } = await startProviderSignIn(PROVIDER);
    const asked = new URL(authorizeUrl).searchParams;
    expect(asked.get("code_challenge_method")).toBe("S256");
    for (const name of ["code_challenge", "state", "nonce"]) expect(asked.get(name)).toBeTruthy();
    expect(asked.get("scope")).toBe("openid email profile");
    const before = await count();
    const landing = await finishAtApp(jar, await atProvider(jar, authorizeUrl));
    expect(signInError(landing)).toBeNull();
    expect(landing.session).toBeDefined();
    expect(await count()).toBe(before + 1);
  });

  it("an ID token re-signed with one harmless claim more still signs in (so each refusal below is its one change)", async () => {
    const { count } = await setUp();
    const before = await count();
    const landing = await withIdToken(() => idp().tamperNextIdToken((c) => ({ ...c, locale: "en" })));
    expect(landing.session).toBeDefined();
    expect(await count()).toBe(before + 1);
  });

  it("a tampered state is refused", async () => {
    const { count, sub } = await setUp();
    const { jar, authorizeUrl } = await startProviderSignIn(PROVIDER);
    const callback = new URL(await atProvider(jar, authorizeUrl));
    callback.searchParams.set("state", `${callback.searchParams.get("state")}x`);
    await expectRefused(count, await finishAtApp(jar, callback.toString()), await count());
    expect(await identitiesOf(server().db, sub)).toEqual([]);
  });

  it("an ID token whose nonce is not this sign-in's is refused", async () => {
    const { count } = await setUp();
    const before = await count();
    await expectRefused(count, await withIdToken(() => idp().tamperNextIdToken((c) => ({ ...c, nonce: "another-sign-in" }))), before);
  });

  it("an ID token from another issuer (a second provider signing for the same client id) is refused", async () => {
    const { count } = await setUp();
    const before = await count();
    await expectRefused(count, await withIdToken(() => idp().tamperNextIdToken((c) => ({ ...c, iss: other().issuer }), other())), before);
  });

  it("an ID token for another audience is refused", async () => {
    const { count } = await setUp();
    const before = await count();
    await expectRefused(count, await withIdToken(() => idp().tamperNextIdToken((c) => ({ ...c, aud: "another-app" }))), before);
  });

  it("an expired ID token is refused", async () => {
    const { count } = await setUp();
    const before = await count();
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(count, await withIdToken(() => idp().tamperNextIdToken((c) => ({ ...c, iat: now - 3600, exp: now - 600 }))), before);
  });

  it("an ID token replayed from an earlier sign-in is refused", async () => {
    const { count } = await setUp();
    expect((await signInThroughProvider(PROVIDER)).session).toBeDefined();
    const earlier = idp().idTokens.at(-1)!;
    const before = await count();
    await expectRefused(count, await withIdToken(() => idp().replaceNextIdToken(earlier)), before);
  });

  it("a replayed authorization code is refused, with the browser's own cookies", async () => {
    const { count } = await setUp();
    const { jar, authorizeUrl } = await startProviderSignIn(PROVIDER);
    const callback = await atProvider(jar, authorizeUrl);
    const cookiesBefore = jar.copy();
    expect((await finishAtApp(jar, callback)).session).toBeDefined();
    const before = await count();
    await expectRefused(count, await finishAtApp(cookiesBefore, callback), before);
  });
});
