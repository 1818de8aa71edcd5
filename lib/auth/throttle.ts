import { RateLimiterDrizzle, type RateLimiterRes } from "rate-limiter-flexible";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";
import { recordAudit } from "../audit";

/**
 * Sign-in throttle, per account (email) and per client address, kept in the
 * database so every instance sees the same counters. Each key gets a few
 * free failures in a window; the failure that uses up the allowance locks
 * the key, and each lockout of the same key within a day lasts twice as
 * long as the one before. A successful sign-in clears the account's counters
 * (never the address's: one good account must not unlock guessing at others).
 */
export const THROTTLE = {
  accountAttempts: 5,
  addressAttempts: 20,
  windowSeconds: 15 * 60,
  firstLockSeconds: 60,
  maxLockSeconds: 60 * 60,
  lockoutMemorySeconds: 24 * 60 * 60,
} as const;

export interface SignInThrottle {
  /** Seconds the caller must wait before trying again, or 0 when a try is allowed now. */
  retryAfter(keys: ThrottleKeys): Promise<number>;
  /** Counts a failed try; returns the seconds of the lock it caused, or 0. */
  recordFailure(keys: ThrottleKeys): Promise<number>;
  recordSuccess(keys: ThrottleKeys): Promise<void>;
}

export interface ThrottleKeys {
  email: string;
  /** The client address when it is known (see `clientAddress`). */
  address?: string | null;
}

type Limiter = InstanceType<typeof RateLimiterDrizzle>;

interface Scope {
  name: "account" | "address";
  attempts: Limiter;
  lockouts: Limiter;
  points: number;
  key(keys: ThrottleKeys): string | undefined;
}

/** A throttle over the `rate_limits` table; any number of these (or instances) share one state. */
export function createSignInThrottle(db: Db): SignInThrottle {
  const limiter = (keyPrefix: string, points: number, duration: number) =>
    new RateLimiterDrizzle({ storeClient: db, schema: rateLimits, keyPrefix, points, duration, clearExpiredByTimeout: false });
  const scopes: Scope[] = [
    {
      name: "account",
      attempts: limiter("sign_in:account", THROTTLE.accountAttempts, THROTTLE.windowSeconds),
      lockouts: limiter("sign_in_lockouts:account", 1_000_000, THROTTLE.lockoutMemorySeconds),
      points: THROTTLE.accountAttempts,
      key: (k) => normaliseEmail(k.email),
    },
    {
      name: "address",
      attempts: limiter("sign_in:address", THROTTLE.addressAttempts, THROTTLE.windowSeconds),
      lockouts: limiter("sign_in_lockouts:address", 1_000_000, THROTTLE.lockoutMemorySeconds),
      points: THROTTLE.addressAttempts,
      key: (k) => k.address ?? undefined,
    },
  ];

  const lockedFor = (res: RateLimiterRes | null, points: number) =>
    res && res.consumedPoints >= points && res.msBeforeNext > 0 ? Math.ceil(res.msBeforeNext / 1000) : 0;

  return {
    async retryAfter(keys) {
      let wait = 0;
      for (const scope of scopes) {
        const key = scope.key(keys);
        if (!key) continue;
        wait = Math.max(wait, lockedFor(await scope.attempts.get(key), scope.points));
      }
      return wait;
    },

    async recordFailure(keys) {
      let lock = 0;
      for (const scope of scopes) {
        const key = scope.key(keys);
        if (!key) continue;
        const res = await scope.attempts.penalty(key, 1);
        // Exactly one failure crosses the line, however many arrive at once: it sets the lock.
        if (res.consumedPoints !== scope.points) continue;
        const lockouts = (await scope.lockouts.penalty(key, 1)).consumedPoints;
        const seconds = Math.min(THROTTLE.firstLockSeconds * 2 ** (lockouts - 1), THROTTLE.maxLockSeconds);
        await scope.attempts.block(key, seconds);
        lock = Math.max(lock, seconds);
        await recordAudit(db, {
          workspaceId: null,
          actor: { kind: "system" },
          action: "auth.sign_in_locked",
          target: { type: scope.name === "account" ? "email" : "address", id: key },
          detail: { scope: scope.name, seconds, lockouts, failures: scope.points },
        });
      }
      return lock;
    },

    async recordSuccess(keys) {
      const account = scopes[0]!;
      const key = account.key(keys);
      if (!key) return;
      await account.attempts.delete(key);
      await account.lockouts.delete(key);
    },
  };
}

const cache = new WeakMap<object, SignInThrottle>();

/** The throttle of a database handle (one per process and database). */
export function signInThrottle(db: Db): SignInThrottle {
  let throttle = cache.get(db);
  if (!throttle) {
    throttle = createSignInThrottle(db);
    cache.set(db, throttle);
  }
  return throttle;
}

function normaliseEmail(email: string): string | undefined {
  const value = email.trim().toLowerCase();
  return value === "" ? undefined : value.slice(0, 254);
}

/**
 * The client address of a request, for throttling. Route handlers do not see
 * the socket, and X-Forwarded-For is whatever the client sent unless a proxy
 * we trust rewrites it. So the address is read only when
 * CLAWDECK_TRUSTED_PROXIES says how many proxies append to the header: the
 * entry that many places from the right is the one the outermost trusted
 * proxy saw. With no trusted proxy the address is unknown (null) and only
 * the per-account throttle applies.
 */
export function clientAddress(headers: Headers, trustedProxies: number): string | null {
  if (trustedProxies <= 0) return null;
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const entry = hops[hops.length - trustedProxies];
  if (!entry) return null;
  return entry.slice(0, 64).toLowerCase();
}
