import NextAuth from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { getToken } from "next-auth/jwt";
import { z } from "zod";
import { getServer } from "../server";
import { getUserById, verifyCredentials, type PublicUser } from "../workspaces/users";
import { logError } from "../log";

const credentialsSchema = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(200) });
const SESSION_MAX_AGE = 30 * 24 * 60 * 60;

export const { handlers, auth, signIn, signOut } = NextAuth(async () => {
  const server = await getServer();
  return {
    secret: server.secrets.authSecret,
    trustHost: true,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE },
    pages: { signIn: "/sign-in" },
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
        async authorize(raw) {
          const parsed = credentialsSchema.safeParse(raw);
          if (!parsed.success) return null;
          const user = await verifyCredentials(server.db, parsed.data.email, parsed.data.password);
          return user ? { id: user.id, email: user.email, name: user.name } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user?.id) token.sub = user.id;
        return token;
      },
      session({ session, token }) {
        if (token.sub) session.user.id = token.sub;
        return session;
      },
    },
  };
});

const SESSION_COOKIE = "authjs.session-token";

/**
 * The signed-in user of a request, read from the session cookie alone (no
 * Next.js request context), so route handlers can be called directly in
 * tests. The account must still exist: a deleted user's cookie is worthless.
 */
export async function userFromRequest(req: Request): Promise<PublicUser | null> {
  const server = await getServer();
  const secureCookie = (req.headers.get("cookie") ?? "").includes(`__Secure-${SESSION_COOKIE}`);
  const token = await getToken({ req, secret: server.secrets.authSecret, secureCookie });
  if (!token?.sub) return null;
  return (await getUserById(server.db, token.sub)) ?? null;
}

/** The signed-in user of the current page render. */
export async function currentUser(): Promise<PublicUser | null> {
  const session = await auth();
  const id = session?.user?.id;
  if (!id) return null;
  const server = await getServer();
  return (await getUserById(server.db, id)) ?? null;
}
