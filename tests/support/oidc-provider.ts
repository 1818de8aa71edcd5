/**
 * A real OpenID Connect provider (the `oidc-provider` package) on 127.0.0.1, for the sign-in tests: one client (code
 * flow, PKCE required, client_secret_basic), and an interaction page whose one button signs in the account the test
 * chose. The test can change that account's claims, and rewrite the next ID token the token endpoint hands out (a wrong
 * issuer, audience, expiry or nonce, or one signed by another provider), re-signed as a forger would.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestAccount {
  sub: string;
  email?: string;
  /** Anything the provider may send: only `true` verifies. */
  email_verified?: unknown;
  name?: string;
  /** Any other claim the ID token should carry (`xms_edov`). */
  [claim: string]: unknown;
}

type Claims = Record<string, unknown>;

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next interaction signs in (its claims replace any earlier ones of the same `sub`). */
  signInAs(account: TestAccount): void;
  /** Rewrites the claims of the next ID token the token endpoint returns; `signer` signs it (default: this provider's key). */
  tamperNextIdToken(change: (claims: Claims) => Claims, signer?: TestIdp): void;
  /** Replaces the next ID token the token endpoint returns with this one, untouched. */
  replaceNextIdToken(token: string): void;
  /** Every ID token this provider handed out, in order. */
  idTokens: string[];
  /** How many requests reached this provider (discovery, authorization, token, keys). */
  requests: () => number;
  sign(claims: Claims): string;
  close(): Promise<void>;
}

const b64url = (value: Buffer | string) => Buffer.from(value).toString("base64url");

export async function startTestIdp(options: { redirectUris: string[]; clientId?: string; clientSecret?: string }): Promise<TestIdp> {
  const clientId = options.clientId ?? "clawdeck-test";
  const clientSecret = options.clientSecret ?? crypto.randomBytes(24).toString("hex");
  const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = crypto.randomBytes(6).toString("hex");
  const jwk = { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
  const accounts = new Map<string, TestAccount>();
  let chosen: string | undefined;
  let rewrite: ((token: string) => string) | undefined;
  let requestCount = 0;
  const idTokens: string[] = [];

  const sign = (claims: Claims) => {
    const head = `${b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid }))}.${b64url(JSON.stringify(claims))}`;
    return `${head}.${b64url(crypto.sign("sha256", Buffer.from(head), privateKey))}`;
  };

  const server = http.createServer((req, res) => {
    requestCount += 1;
    void handle(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Made once the port is known (the issuer names it); the server asks it nothing before then.
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [jwk] },
    // `xms_edov`: how Microsoft Entra ID says an address is verified, for the test that plays Entra.
    claims: { openid: ["sub"], email: ["email", "email_verified", "xms_edov"], profile: ["name"] },
    // The claims of the scopes asked for go into the ID token itself, as the providers the docs name send them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: [crypto.randomBytes(16).toString("hex")] },
    ttl: { AccessToken: 600, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ ...account }) };
    },
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", issuer);
    const interaction = /^\/interaction\/([^/]+)$/.exec(url.pathname);
    if (interaction && req.method === "GET") {
      const account = chosen ? accounts.get(chosen) : undefined;
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(
        `<!doctype html><title>Test identity provider</title><form method="post"><p>Signing in to Clawdeck</p>` +
          `<button type="submit">Continue as ${account?.email ?? account?.sub ?? "nobody"}</button></form>`,
      );
      return;
    }
    if (interaction && req.method === "POST") {
      const details = await provider.interactionDetails(req, res);
      if (!chosen) throw new Error("The test chose no account to sign in (signInAs)");
      const grant = new provider.Grant({ accountId: chosen, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: chosen }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") interceptIdToken(res);
    provider.callback()(req, res);
  }

  /** The token response's `id_token`, noted, and rewritten once when the test asked for it. */
  function interceptIdToken(res: http.ServerResponse) {
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    res.end = ((chunk?: unknown) => {
      const text = chunk === undefined ? "" : Buffer.from(chunk as Buffer | string).toString("utf8");
      const body = text.startsWith("{") ? (JSON.parse(text) as { id_token?: string }) : null;
      if (!body?.id_token) return end(chunk);
      idTokens.push(body.id_token);
      if (!rewrite) return end(chunk);
      body.id_token = rewrite(body.id_token);
      rewrite = undefined;
      const out = JSON.stringify(body);
      res.setHeader("content-length", Buffer.byteLength(out));
      return end(out);
    }) as typeof res.end;
  }

  const idp: TestIdp = {
    issuer,
    clientId,
    clientSecret,
    idTokens,
    signInAs(account) {
      accounts.set(account.sub, account);
      chosen = account.sub;
    },
    tamperNextIdToken(change, signer = idp) {
      rewrite = (token) => signer.sign(change(JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Claims));
    },
    replaceNextIdToken(token) {
      rewrite = () => token;
    },
    requests: () => requestCount,
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return idp;
}
