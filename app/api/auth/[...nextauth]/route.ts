import { authRoute } from "@/lib/http/auth";
import { documented } from "@/lib/http/route";

export const GET = documented({ summary: "next-auth's reads for the sign-in page: the session, the CSRF token, the providers" }, authRoute.GET);

export const POST = documented(
  {
    summary:
      "sign in (`/api/auth/callback/credentials`, a form with `email` and `password`; 429 `rate_limited:sign_in` with `Retry-After` for a locked-out account or address, before any password is checked) and sign out (`/api/auth/signout`)",
  },
  authRoute.POST,
);
