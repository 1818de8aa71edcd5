import { authRoute } from "@/lib/http/auth";
import { documented } from "@/lib/http/route";

export const GET = documented(
  {
    summary:
      "next-auth's reads for the sign-in page: the session, the CSRF token, the providers; the way back from an identity provider (`/api/auth/callback/oidc-<name>`), which signs the person in or returns to `/sign-in?error=` with the reason",
  },
  authRoute.GET,
);

export const POST = documented(
  {
    summary:
      "sign in (`/api/auth/callback/credentials`, a form with `email` and `password`; 429 `rate_limited:sign_in` with `Retry-After` for a locked-out account or address, before any password is checked; a right password of a person whose workspace requires single sign-on returns to `/sign-in?error=CredentialsSignin&code=sso_required`, except an owner's, which signs in as an audited break-glass), single sign-on (`/api/auth/signin/oidc-<name>`, a form with the CSRF token: to the identity provider) and sign out (`/api/auth/signout`)",
  },
  authRoute.POST,
);
