import { NextResponse, type NextRequest } from "next/server";
import { commonSecurityHeaders, createNonce, pageContentSecurityPolicy } from "./lib/http/security-headers";
import { getEnv } from "./lib/env";

/**
 * Puts the security headers on every page. A page's policy carries a nonce
 * made for this request; it is also set on the request so that Next.js
 * stamps the same nonce on the scripts it renders (which is why every page
 * renders per request: see the root layout). API responses get their fixed
 * headers from `next.config.ts`, without running this.
 */
export function proxy(request: NextRequest) {
  const policy = pageContentSecurityPolicy(createNonce(), {
    development: process.env.NODE_ENV === "development",
    formActions: getEnv().oidcProviders.map((p) => new URL(p.issuer).origin),
  });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  for (const [name, value] of Object.entries(commonSecurityHeaders)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Pages only: built assets are immutable files with exact types, and API routes (`/api`, `/api/…`) get fixed
  // headers from next.config.ts.
  matcher: ["/((?!api/|api$|_next/static|_next/image|favicon.ico).*)"],
};
