import NextAuth, { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { getToken, type JWT } from "next-auth/jwt";
import { z } from "zod";
import { getServer } from "../server";
import { AppError } from "../errors";
import { createChat, revokeSession, SESSION_MAX_AGE_SECONDS, userOfSession, type SignInMethod } from "../auth/sessions";
import { clientAddress, signInThrottle } from "../auth/throttle";
import { auditBreakGlass, auditSignIn } from "../auth/sign-in-audit";
import { passwordSignInRule } from "../auth/sso-settings";
import { acceptProviderSignIn, oidcProviders } from "./sso";
import { getUserById, verifyCredentials, type PublicUser } from "../workspaces/users";
import { logError } from "../log";
import { errorResponse } from "./errors";

const noNul = (v: string) => !v.includes("\0");
const emailSchema = z.string().min(1).max(254).refine(noNul);
const credentialsSchema = z.object({ email: emailSchema, password: z.string().min(1).max(200).refine(noNul) });

/** Sign-in refused because of too many failures; `retryAfter` is in seconds. */
export class SignInThrottled extends CredentialsSignin {
  code = "rate_limited";
  constructor(readonly retryAfter: number) {
    super(`Too many sign-in attempts; retry in ${retryAfter} s`);
  }
}

/** A right password of a person whose workspace requires SSO; `provider` is the sign-in button's label to point to. */
export class SignInNeedsSso extends CredentialsSignin {
  code = "sso_required";
  constructor(readonly provider: string | null) {
    super("This person's workspace requires single sign-on");
  }
}

declare module "next-auth" {
  interface User {
    /** How this sign-in proved who the person is; the server-side session records it. */
    signInMethod?: SignInMethod;
  }
}

export type SignInResult = { user: PublicUser; method: SignInMethod } | { wrong: true } | { retryAfter: number } | { ssoRequired: string | null };

/**
 * The one sign-in check, behind every door (the sign-in form, the next-auth
 * callback route): throttle first, then the password; a failure counts
 * against the account and the client address, a success clears the account.
 */
export async function checkSignIn(email: string, password: string, headers: Headers): Promise<SignInResult> {
  // Input no account can have (a NUL, a 10 kB "email") is a wrong password, never a query the database refuses.
  if (!credentialsSchema.safeParse({ email, password }).success) return { wrong: true };
  const server = await getServer();
  const throttle = signInThrottle(server.db);
  const keys = { email, address: clientAddress(headers, server.env.CLAWDECK_TRUSTED_PROXIES) };
  const wait = await throttle.retryAfter(keys);
  if (wait > 0) return { retryAfter: wait };
  const user = await verifyCredentials(server.db, email, password);
  if (!user) {
    const lock = await throttle.recordFailure(keys);
    await auditSignIn(server.db, { email }, "auth.sign_in_failed", keys.address);
    return lock > 0 ? { retryAfter: lock } : { wrong: true };
  }
  await throttle.recordSuccess(keys);
  // Asked only once the password is right, so the answer never tells a stranger which addresses use SSO.
  const rule = await passwordSignInRule(server.db, user.id);
  if ("refused" in rule) return { ssoRequired: server.env.oidcProviders[0]?.label ?? null };
  await auditSignIn(server.db, { userId: user.id }, "auth.signed_in", keys.address);
  if ("breakGlass" in rule) {
    await auditBreakGlass(server.db, user.id, rule.breakGlass, keys.address);
    return { user, method: "break_glass" };
  }
  return { user, method: "password" };
}

/** Seconds before this email (from this client) may try to sign in again; 0 when it may now. */
export async function signInWait(email: string, headers: Headers): Promise<number> {
  if (!emailSchema.safeParse(email).success) return 0;
  const server = await getServer();
  return signInThrottle(server.db).retryAfter({ email, address: clientAddress(headers, server.env.CLAWDECK_TRUSTED_PROXIES) });
}

export const { handlers, auth, signIn, signOut } = NextAuth(async (request) => {
  const server = await getServer();
  const address = request ? clientAddress(request.headers, server.env.CLAWDECK_TRUSTED_PROXIES) : null;
  return {
    secret: server.secrets.authSecret,
    trustHost: true,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    // A failed provider sign-in comes back to the sign-in page, which says what happened in words.
    pages: { signIn: "/sign-in", error: "/sign-in" },
    logger: {
      // A refused password is an answer, not a server error: keep it out of the error log.
      error(error: Error) {
        if (error.name === "CredentialsSignin" || (error as { type?: string }).type === "CredentialsSignin") return;
        logError("[auth]", error);
      },
    },
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(raw, request) {
          const parsed = credentialsSchema.safeParse(raw);
          if (!parsed.success) return null;
          const result = await checkSignIn(parsed.data.email, parsed.data.password, request.headers);
          if ("retryAfter" in result) throw new SignInThrottled(result.retryAfter);
          if ("ssoRequired" in result) throw new SignInNeedsSso(result.ssoRequired);
          if ("wrong" in result) return null;
          return { id: result.user.id, email: result.user.email, name: result.user.name, signInMethod: result.method };
        },
      }),
      ...oidcProviders(server.env.oidcProviders),
    ],
    callbacks: {
      // Passwords were checked in `authorize`; a provider's ID token was checked by next-auth, and who it names is decided here.
      signIn: ({ user, account, profile }) =>
        account?.type === "oidc" ? acceptProviderSignIn(server.db, server.env.oidcProviders, { user, account, profile }, address) : true,
      async jwt({ token, user }) {
        if (user?.id) {
          // A fresh sign-in: open the server-side session whose id the cookie carries.
          token.sub = user.id;
          token.sid = await createChat(server.db, user.id, user.signInMethod ?? "password");
          return token;
        }
        // Every later read: a revoked or expired session ends here, and the cookie is cleared.
        return (await userOfSession(server.db, token.sid, token.sub)) ? token : null;
      },
      session({ session, token }) {
        if (token.sub) session.user.id = token.sub;
        return session;
      },
    },
    events: {
      async signOut(message) {
        if ("token" in message && message.token) {
          await revokeSession(server.db, message.token.sid, "sign_out");
          if (typeof message.token.sub === "string") await auditSignIn(server.db, { userId: message.token.sub }, "auth.signed_out", null);
        }
      },
    },
  };
});

const SESSION_COOKIE = "authjs.session-token";

type Token = JWT | null;

/**
 * Decoded session cookies, by their exact text: decrypting the cookie is the
 * same work with the same answer on every request of a tab, so it is done
 * once per cookie and process. Only the decoding is kept: whether the session
 * it names is still live is asked of the database on every request. An entry
 * is used only while the token itself is unexpired, and at most a minute.
 */
const decoded = new Map<string, { token: Token; secret: string; until: number }>();
const DECODED_MAX = 5_000;
const DECODED_MS = 60_000;

/** The session cookie's own parts (a large token is split into `.0`, `.1`…), as one key. */
function sessionCookieText(req: Request): string | null {
  const parts: string[] = [];
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const text = part.trim();
    if (text.startsWith(SESSION_COOKIE) || text.startsWith(`__Secure-${SESSION_COOKIE}`)) parts.push(text);
  }
  return parts.length > 0 ? parts.sort().join("; ") : null;
}

async function tokenFromRequest(req: Request): Promise<Token> {
  const server = await getServer();
  const secret = server.secrets.authSecret;
  const text = sessionCookieText(req);
  if (text === null) return (await getToken({ req, secret, secureCookie: false })) as Token;
  const now = Date.now();
  const hit = decoded.get(text);
  if (hit && hit.until > now && hit.secret === secret) return hit.token;
  if (hit) decoded.delete(text);
  const secureCookie = text.includes(`__Secure-${SESSION_COOKIE}`);
  const token = (await getToken({ req, secret, secureCookie })) as Token;
  if (token) {
    const exp = typeof token.exp === "number" ? token.exp * 1000 : now;
    const until = Math.min(exp, now + DECODED_MS);
    if (until > now) {
      if (decoded.size >= DECODED_MAX) decoded.delete(decoded.keys().next().value!);
      decoded.set(text, { token, secret, until });
    }
  }
  return token;
}

/**
 * The signed-in user of a request, read from the session cookie alone (no
 * Next.js request context), so route handlers can be called directly in
 * tests. The cookie names a server-side session that must still be live:
 * after sign-out or a password change the same cookie is worthless.
 */
export async function userFromRequest(req: Request): Promise<PublicUser | null> {
  const token = await tokenFromRequest(req);
  if (!token?.sub) return null;
  const server = await getServer();
  return userOfSession(server.db, token.sid, token.sub);
}

/** The session and user ids a request's cookie claims (still to be checked against the live session). */
export async function sessionClaimOfRequest(req: Request): Promise<{ sessionId: unknown; userId: unknown } | null> {
  const token = await tokenFromRequest(req);
  return token?.sub ? { sessionId: token.sid, userId: token.sub } : null;
}

/** The session id of a request's cookie (to keep the current session when ending the others). */
export async function sessionIdFromRequest(req: Request): Promise<string | undefined> {
  const token = await tokenFromRequest(req);
  return typeof token?.sid === "string" ? token.sid : undefined;
}

/** The signed-in user of the current page render, checked against the live session like every request. */
export async function currentUser(): Promise<PublicUser | null> {
  const session = await auth();
  const id = session?.user?.id;
  if (!id) return null;
  // `auth()` already ran the jwt callback, which refuses a revoked session.
  const server = await getServer();
  return (await getUserById(server.db, id)) ?? null;
}

/**
 * The next-auth route, with one addition: a credentials sign-in from an
 * account or address that is locked out gets `429 rate_limited:sign_in` and
 * Retry-After, before any password is checked.
 */
export const authRoute = {
  GET: (req: Request) => handlers.GET(req as Parameters<typeof handlers.GET>[0]),
  async POST(req: Request): Promise<Response> {
    if (new URL(req.url).pathname.endsWith("/callback/credentials")) {
      const form = await req.clone().formData().catch(() => undefined);
      const email = form?.get("email");
      if (typeof email === "string" && emailSchema.safeParse(email).success) {
        const server = await getServer();
        const wait = await signInThrottle(server.db).retryAfter({
          email,
          address: clientAddress(req.headers, server.env.CLAWDECK_TRUSTED_PROXIES),
        });
        if (wait > 0) return throttledResponse(wait);
      }
    }
    return handlers.POST(req as Parameters<typeof handlers.POST>[0]);
  },
};

export function throttledResponse(retryAfter: number): Response {
  const res = errorResponse(
    new AppError("rate_limited:sign_in", `Too many sign-in attempts. Try again in ${retryAfter} s.`, { details: { retryAfter } }),
  );
  res.headers.set("Retry-After", String(retryAfter));
  return res;
}
