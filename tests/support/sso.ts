/**
 * A browser's way through single sign-on, without a browser: our next-auth route is called directly (as the other
 * sign-in tests do), the identity provider over real HTTP, each with its own cookies.
 */
import { authRoute } from "../../lib/http/auth";
import { APP_ORIGIN } from "./server";

const AUTH = `${APP_ORIGIN}/api/auth`;

/** Cookies per origin, as a browser keeps them (paths are not told apart: nothing here needs it). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  store(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const gone = value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1]!) < Date.now()));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
  }

  header(url: string): string {
    return [...(this.byOrigin.get(new URL(url).origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  copy(): CookieJar {
    const copy = new CookieJar();
    for (const [origin, jar] of this.byOrigin) copy.byOrigin.set(origin, new Map(jar));
    return copy;
  }
}

const isRedirect = (res: Response) => res.status >= 300 && res.status < 400;

/** Our route, as the browser reaches it. */
export async function callApp(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { cookie: jar.header(url) };
  if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
  const req = new Request(url, { method: init.method ?? "GET", headers, body: init.form ? new URLSearchParams(init.form) : undefined });
  const res = init.method === "POST" ? await authRoute.POST(req) : await authRoute.GET(req);
  jar.store(url, res);
  return res;
}

/** The sign-in button: next-auth's CSRF token, then the POST that sends the browser to the provider. */
export async function startProviderSignIn(providerId: string, jar = new CookieJar()): Promise<{ jar: CookieJar; authorizeUrl: string }> {
  const csrf = await callApp(jar, `${AUTH}/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await callApp(jar, `${AUTH}/signin/${providerId}`, { method: "POST", form: { csrfToken, callbackUrl: "/" } });
  if (!isRedirect(res)) throw new Error(`The sign-in button answered ${res.status}`);
  return { jar, authorizeUrl: res.headers.get("location")! };
}

/** At the provider: follow its redirects and press "Continue" on its page, up to the redirect back to our callback. */
export async function atProvider(jar: CookieJar, authorizeUrl: string): Promise<string> {
  let url = authorizeUrl;
  let method = "GET";
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, { method, redirect: "manual", headers: { cookie: jar.header(url) } });
    jar.store(url, res);
    method = "GET";
    if (isRedirect(res)) {
      url = new URL(res.headers.get("location")!, url).toString();
      if (new URL(url).origin === APP_ORIGIN) return url;
    } else if (res.status === 200 && new URL(url).pathname.startsWith("/interaction/")) {
      await res.text();
      method = "POST";
    } else {
      throw new Error(`The provider answered ${res.status} at ${url}: ${await res.text()}`);
    }
  }
  throw new Error("Too many redirects at the provider");
}

export interface Landing {
  /** Where our callback sent the browser: `/` signed in, or the sign-in page with `?error=`. */
  location: string;
  /** The session cookie when one was set. */
  session?: string;
}

/** Our callback, with the browser's cookies (for a replay, the cookies as they were before the first call). */
export async function finishAtApp(jar: CookieJar, callbackUrl: string): Promise<Landing> {
  const res = await callApp(jar, callbackUrl);
  if (!isRedirect(res)) throw new Error(`The callback answered ${res.status}`);
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .find((c) => c.startsWith("authjs.session-token=") && c.length > "authjs.session-token=".length);
  return { location: res.headers.get("location")!, session };
}

/** The whole way: button, provider, callback. */
export async function signInThroughProvider(providerId: string): Promise<Landing & { jar: CookieJar; callbackUrl: string }> {
  const { jar, authorizeUrl } = await startProviderSignIn(providerId);
  const callbackUrl = await atProvider(jar, authorizeUrl);
  return { ...(await finishAtApp(jar, callbackUrl)), jar, callbackUrl };
}

/** The error code a refused sign-in lands with on our sign-in page (null: it did not land there). */
export function signInError(landing: Landing): string | null {
  const url = new URL(landing.location, APP_ORIGIN);
  return url.pathname === "/sign-in" ? url.searchParams.get("error") : null;
}
