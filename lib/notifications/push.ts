/**
 * Web push: the server's VAPID key pair (made once, at first start, and kept sealed in the database so every instance
 * signs with the same one), the browsers each person allowed, and the sending of one notification to them. The
 * payload is encrypted for each browser (aes128gcm) and sent to its push service through the same guarded fetch as
 * every other outbound request, so a subscription cannot aim the server at its own network.
 */
import { and, eq } from "drizzle-orm";
import webpush from "web-push";
import { z } from "zod";
import type { Db } from "../db/client";
import { pushSubscriptions, serverKeys } from "../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { AppError } from "../errors";
import { FetchRefusedError, safeFetch } from "../net/safe-fetch";

const VAPID_KEY_NAME = "vapid";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** The server's VAPID keys, made on first use; two instances starting together agree on the first one stored. */
export async function vapidKeys(db: Db, encryptionKey: Buffer): Promise<VapidKeys> {
  const read = async () => (await db.select({ value: serverKeys.value }).from(serverKeys).where(eq(serverKeys.name, VAPID_KEY_NAME)))[0];
  let row = await read();
  if (!row) {
    const made = webpush.generateVAPIDKeys();
    await db
      .insert(serverKeys)
      .values({ name: VAPID_KEY_NAME, value: encryptSecret(JSON.stringify(made), encryptionKey) })
      .onConflictDoNothing();
    row = await read();
  }
  return JSON.parse(decryptSecret(row!.value, encryptionKey)) as VapidKeys;
}

/** The browser's `PushSubscription.toJSON()`, as the settings page posts it. */
export const pushSubscriptionBodySchema = z.object({
  endpoint: z.url({ protocol: /^https?$/ }).max(2000),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // The browser's P-256 public key (65 bytes) and auth secret (16 bytes), base64url.
    p256dh: z.string().regex(/^[A-Za-z0-9_-]{86,88}={0,2}$/, "not a P-256 public key"),
    auth: z.string().regex(/^[A-Za-z0-9_-]{21,24}={0,2}$/, "not a push auth secret"),
  }),
  /** The device in words, for the list of browsers ("Chrome on Android"). */
  label: z.string().trim().min(1).max(80).optional(),
});
export type PushSubscriptionBody = z.infer<typeof pushSubscriptionBodySchema>;

/** Saves a browser for a person; the same browser subscribing again replaces its keys (and moves to this person). */
export async function savePushSubscription(db: Db, userId: string, body: PushSubscriptionBody) {
  const values = { userId, endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth, label: body.label ?? "A browser" };
  const [row] = await db
    .insert(pushSubscriptions)
    .values(values)
    .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: { userId, p256dh: values.p256dh, auth: values.auth, label: values.label } })
    .returning({ id: pushSubscriptions.id, label: pushSubscriptions.label, createdAt: pushSubscriptions.createdAt, lastSentAt: pushSubscriptions.lastSentAt });
  return row!;
}

export async function deletePushSubscription(db: Db, userId: string, id: string): Promise<void> {
  const gone = await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.id, id), eq(pushSubscriptions.userId, userId)))
    .returning({ id: pushSubscriptions.id });
  if (gone.length === 0) throw new AppError("not_found:push_subscription", "That browser is not set up for your notifications.");
}

/** A person's browsers, without their keys. */
export async function listPushSubscriptions(db: Db, userId: string) {
  return db
    .select({ id: pushSubscriptions.id, label: pushSubscriptions.label, createdAt: pushSubscriptions.createdAt, lastSentAt: pushSubscriptions.lastSentAt })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId))
    .orderBy(pushSubscriptions.createdAt);
}

/** What a notification carries to the service worker: what it shows, what it opens, and whether it offers decisions. */
export interface PushPayload {
  title: string;
  body: string;
  /** The card, in the app (a path on this origin). */
  url: string;
  approvalId: string;
  /** The workspace's address (its slug), which the decision route is told. */
  workspace: string;
  /** Approve and Reject buttons, offered only to a person who may decide this request. */
  actions: boolean;
  /** Replaces an earlier notification about the same request instead of stacking. */
  tag: string;
}

export interface PushSender {
  publicKey(): Promise<string>;
  /**
   * Sends to every browser of the person. Resolves with how many took it; a browser whose push service says it is
   * gone (404, 410) is forgotten. Throws, in words, when no browser took it.
   */
  send(userId: string, payload: PushPayload, ttlSeconds: number): Promise<number>;
}

export class PushFailure extends Error {
  /** Nothing to retry: the person has no browser set up (until they turn one on). */
  constructor(message: string, readonly final = false) {
    super(message);
  }
}

/** The push sender of a server: its keys from the database, its outbound requests through the guarded fetch. */
export function createPushSender(db: Db, options: { encryptionKey: Buffer; fetchAllow: readonly string[]; subject: string }): PushSender {
  let keys: Promise<VapidKeys> | null = null;
  const loadKeys = () => (keys ??= vapidKeys(db, options.encryptionKey).catch((error: unknown) => ((keys = null), Promise.reject(error))));
  return {
    async publicKey() {
      return (await loadKeys()).publicKey;
    },
    async send(userId, payload, ttlSeconds) {
      const browsers = await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId));
      if (browsers.length === 0) throw new PushFailure("No browser of yours is set up for push notifications. Turn them on in Settings → Notifications on your phone or computer.", true);
      const vapid = await loadKeys();
      let delivered = 0;
      const failures: string[] = [];
      for (const browser of browsers) {
        const request = webpush.generateRequestDetails(
          { endpoint: browser.endpoint, keys: { p256dh: browser.p256dh, auth: browser.auth } },
          JSON.stringify(payload),
          {
            vapidDetails: { subject: options.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
            TTL: Math.max(60, Math.round(ttlSeconds)),
            urgency: "high",
            topic: payload.tag.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32),
          },
        );
        try {
          const response = await safeFetch(request.endpoint, {
            method: "POST",
            headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
            body: request.body as Buffer,
            allow: options.fetchAllow,
            maxRedirects: 0,
            maxBytes: 16 * 1024,
            timeoutMs: 10_000,
          });
          if (response.status === 404 || response.status === 410) {
            await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, browser.id));
            failures.push(`${browser.label} is no longer subscribed (it was removed)`);
          } else if (response.status >= 200 && response.status < 300) {
            delivered += 1;
            await db.update(pushSubscriptions).set({ lastSentAt: new Date() }).where(eq(pushSubscriptions.id, browser.id));
          } else {
            failures.push(`the push service of ${browser.label} refused it (HTTP ${response.status})`);
          }
        } catch (error) {
          failures.push(
            error instanceof FetchRefusedError
              ? `the push service of ${browser.label} is at an address this server may not reach`
              : `the push service of ${browser.label} could not be reached`,
          );
        }
      }
      if (delivered === 0) throw new PushFailure(`Not delivered: ${failures.join("; ")}.`);
      return delivered;
    },
  };
}

/** VAPID's contact: the app's address when it is https, else a mailbox (push services refuse plain http). */
export function vapidSubject(baseUrl: string, mailFrom: string | undefined): string {
  if (baseUrl.startsWith("https://")) return baseUrl;
  const address = mailFrom?.match(/<([^>]+)>/)?.[1] ?? mailFrom;
  return `mailto:${address && address.includes("@") ? address : "no-reply@clawdeck.local"}`;
}
