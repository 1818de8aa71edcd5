import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

const b64url = (bytes: Buffer) => bytes.toString("base64url");
const hmac = (key: Buffer, data: Buffer) => crypto.createHmac("sha256", key).update(data).digest();

/** A browser's side of a push subscription: its P-256 key pair and auth secret, as the Push API makes them. */
export function makeBrowserKeys() {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.generateKeys();
  return { ecdh, publicKey: ecdh.getPublicKey(), auth: crypto.randomBytes(16) };
}

/** Decrypts an `aes128gcm` Web Push message (RFC 8188 and RFC 8291) as the browser would. */
export function decryptPush(body: Buffer, browser: ReturnType<typeof makeBrowserKeys>): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (recordSize < 18 || ciphertext.length > recordSize) throw new Error("bad record size");
  const shared = browser.ecdh.computeSecret(senderKey);
  const prkKey = hmac(browser.auth, shared);
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from("WebPush: info\0"), browser.publicKey, senderKey, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0\x01", "binary")).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0\x01", "binary")).subarray(0, 12);
  const decipher = crypto.createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error("not the last record");
  return padded.subarray(0, end).toString("utf8");
}

/** Checks a VAPID `Authorization: vapid t=<jwt>, k=<key>` header as a push service does; returns the JWT's claims. */
export function verifyVapid(header: string | undefined, endpoint: string, now = Date.now()) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!match) throw new Error("no VAPID authorization");
  const [, jwt, k] = match as unknown as [string, string, string];
  const [head, claims, signature] = jwt.split(".") as [string, string, string];
  const key = Buffer.from(k, "base64url");
  if (key.length !== 65 || key[0] !== 4) throw new Error("the VAPID key is not an uncompressed P-256 point");
  const publicKey = crypto.createPublicKey({ key: { kty: "EC", crv: "P-256", x: b64url(key.subarray(1, 33)), y: b64url(key.subarray(33)) }, format: "jwk" });
  const valid = crypto.verify("sha256", Buffer.from(`${head}.${claims}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"));
  if (!valid) throw new Error("the VAPID signature does not verify");
  if (JSON.parse(Buffer.from(head, "base64url").toString()).alg !== "ES256") throw new Error("not ES256");
  const body = JSON.parse(Buffer.from(claims, "base64url").toString()) as { aud: string; exp: number; sub: string };
  if (body.aud !== new URL(endpoint).origin) throw new Error(`wrong audience ${body.aud}`);
  if (body.exp * 1000 <= now || body.exp * 1000 > now + 24 * 3600_000) throw new Error("expiry out of range");
  if (!/^(mailto:|https:)/.test(body.sub)) throw new Error("subject is not mailto: or https:");
  return { ...body, publicKey: k };
}

/**
 * A push service on a free port: each subscription gets an endpoint; a message must carry a valid VAPID JWT for that
 * endpoint's origin, a TTL and `Content-Encoding: aes128gcm`, and is kept decrypted with the browser's keys. `gone`
 * endpoints answer 410 as a service does for an unsubscribed browser. `env` gains `CLAWDECK_FETCH_ALLOW`.
 */
export function usePushService(env: Record<string, string>) {
  const state = {
    origin: "",
    received: [] as { endpoint: string; payload: Record<string, unknown>; ttl: number; urgency: string | undefined; vapid: ReturnType<typeof verifyVapid> }[],
    refused: [] as string[],
    gone: new Set<string>(),
    browsers: new Map<string, ReturnType<typeof makeBrowserKeys>>(),
    /** A new browser's subscription, as `PushSubscription.toJSON()` gives it. */
    subscribe(name: string) {
      const keys = makeBrowserKeys();
      const endpoint = `${state.origin}/push/${name}-${crypto.randomBytes(4).toString("hex")}`;
      state.browsers.set(endpoint, keys);
      return { endpoint, expirationTime: null, keys: { p256dh: b64url(keys.publicKey), auth: b64url(keys.auth) } };
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const endpoint = `${state.origin}${req.url}`;
      try {
        if (state.gone.has(endpoint)) {
          res.writeHead(410).end();
          return;
        }
        const browser = state.browsers.get(endpoint);
        if (!browser) throw new Error("unknown endpoint");
        const vapid = verifyVapid(req.headers.authorization, endpoint);
        if (req.headers["content-encoding"] !== "aes128gcm") throw new Error("not aes128gcm");
        const ttl = Number(req.headers.ttl);
        if (!Number.isInteger(ttl) || ttl < 0) throw new Error("no TTL");
        const payload = JSON.parse(decryptPush(Buffer.concat(chunks), browser)) as Record<string, unknown>;
        state.received.push({ endpoint, payload, ttl, urgency: req.headers.urgency as string | undefined, vapid });
        res.writeHead(201).end();
      } catch (error) {
        state.refused.push((error as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env.CLAWDECK_FETCH_ALLOW = [env.CLAWDECK_FETCH_ALLOW, "127.0.0.1"].filter(Boolean).join(",");
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}
