/**
 * Single sign-on through next-auth's OpenID Connect support: one provider per `CLAWDECK_OIDC_<NAME>_…` group, and the
 * step after next-auth has checked the ID token (issuer, audience, expiry, nonce; state and PKCE before it) that
 * decides who the person is here.
 */
import { customFetch } from "next-auth";
import type { OIDCConfig } from "next-auth/providers";
import type { Account, Profile, User } from "next-auth";
import type { Database } from "../db/client";
import type { OidcProviderConfig } from "../env";
import { identityClaimsSchema, signInWithIdentity } from "../auth/oidc-accounts";
import { auditSignIn } from "../auth/sign-in-audit";
import { rememberSecret } from "../secret-redactor";

/** Discovery, the token request and the keys each get this long: a provider that hangs fails the sign-in, not the server. */
const ISSUER_TIMEOUT_MS = 10_000;

// The issuer is the operator's own setting (never a user's), so these requests are not held to `safeFetch`'s rule
// against private addresses: a company's Keycloak often lives on its own network.
const issuerFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS) });

export function oidcProviders(configs: OidcProviderConfig[]): OIDCConfig<Profile>[] {
  return configs.map((config) => {
    rememberSecret(config.clientSecret);
    return {
      id: config.id,
      name: config.label,
      type: "oidc",
      issuer: config.issuer,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      checks: ["pkce", "state", "nonce"],
      authorization: { params: { scope: "openid email profile" } },
      [customFetch]: issuerFetch,
    };
  });
}

/**
 * next-auth's `signIn` callback for a provider's sign-in: `profile` is the checked ID token's claims. The person found
 * or made here replaces next-auth's view of the user (its random id, the provider's email), so the `jwt` callback
 * opens the server-side session for them exactly as a password sign-in does. A refusal goes back to the sign-in page
 * with a code it says in words.
 */
export async function acceptProviderSignIn(
  db: Database,
  configs: OidcProviderConfig[],
  input: { user: User; account: Account | null; profile?: Profile },
  address: string | null,
): Promise<true | string> {
  const provider = configs.find((p) => p.id === input.account?.provider);
  const claims = identityClaimsSchema.safeParse(input.profile);
  if (!provider || !claims.success) return "/sign-in?error=sso_failed";
  const result = await signInWithIdentity(db, provider, claims.data);
  if ("refused" in result) return `/sign-in?error=${result.refused}`;
  Object.assign(input.user, { id: result.user.id, email: result.user.email, name: result.user.name, signInMethod: "sso" });
  await auditSignIn(db, { userId: result.user.id }, "auth.sso_signed_in", address, { provider: provider.name });
  return true;
}
