import { NextResponse, type NextRequest } from "next/server";
import {
  apiContentSecurityPolicy,
  commonSecurityHeaders,
  createNonce,
  isApiPath,
  pageContentSecurityPolicy,
} from "./lib/http/security-headers";

/**
 * Puts the security headers on every page and API response. A page's policy
 * carries a nonce made for this request; it is also set on the request so
 * that Next.js stamps the same nonce on the scripts it renders (which is why
 * every page renders per request: see the root layout).
 */
export function proxy(request: NextRequest) {
  const api = isApiPath(request.nextUrl.pathname);
  const policy = api
    ? apiContentSecurityPolicy
    : pageContentSecurityPolicy(createNonce(), { development: process.env.NODE_ENV === "development" });
  const requestHeaders = new Headers(request.headers);
  if (!api) requestHeaders.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  for (const [name, value] of Object.entries(commonSecurityHeaders)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Built assets are immutable files with exact types; everything else (pages, API, RSC requests) gets the headers.
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
