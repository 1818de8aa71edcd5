/**
 * Removes secret values from text and JSON before it is stored, journaled,
 * shown to a model or logged. A secret is matched in the forms a tool or a
 * server may echo it in: raw, URL-encoded, base64 (standard and URL-safe),
 * JSON-escaped, and inside a `Basic` credential (`user:secret` in base64).
 */

export const REDACTED = "[redacted]";

/** Shorter values are not redacted: they would scrub ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** Token shapes redacted even when the value is not known (another workspace's token pasted in a page). */
const TOKEN_PATTERNS = [/\bxox[abposre]-[A-Za-z0-9-]{6,}/g, /\bsk-ant-[A-Za-z0-9_-]{10,}/g];

function base64Forms(value: string): string[] {
  const standard = Buffer.from(value, "utf8").toString("base64");
  const unpadded = standard.replace(/=+$/, "");
  return [standard, unpadded, unpadded.replace(/\+/g, "-").replace(/\//g, "_")];
}

/** Every form of a secret that is searched for, longest first so no shorter form leaves a tail behind. */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const forms = new Set<string>([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), ...base64Forms(secret)]);
  // `Authorization: Basic base64(user:secret)`: the secret shifts the base64 alignment, so match the
  // part of the encoding that depends on the secret alone for each of the three alignments.
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.from("x".repeat(shift) + secret, "utf8").toString("base64");
    const stable = encoded.slice(shift ? 4 : 0, -4);
    if (stable.length >= MIN_SECRET_LENGTH) forms.add(stable);
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** A set of secrets to redact, with their forms worked out once. */
export class Redactor {
  private readonly forms: string[];

  constructor(secrets: Iterable<string | null | undefined>) {
    const all = new Set<string>();
    for (const secret of secrets) if (secret) for (const form of secretForms(secret)) all.add(form);
    this.forms = [...all].sort((a, b) => b.length - a.length);
  }

  text(input: string): string {
    let out = input;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** A copy of a JSON-like value with every string (keys included) redacted. */
  value<T>(input: T): T {
    return this.walk(input, 0) as T;
  }

  private walk(input: unknown, depth: number): unknown {
    if (typeof input === "string") return this.text(input);
    if (depth > 50 || input === null || typeof input !== "object") return input;
    if (Array.isArray(input)) return input.map((item) => this.walk(item, depth + 1));
    if (input instanceof Date) return input;
    return Object.fromEntries(Object.entries(input).map(([key, item]) => [this.text(key), this.walk(item, depth + 1)]));
  }
}

export function redactText(text: string, secrets: Iterable<string | null | undefined>): string {
  return new Redactor(secrets).text(text);
}

export function redactValue<T>(value: T, secrets: Iterable<string | null | undefined>): T {
  return new Redactor(secrets).value(value);
}

// ---------------------------------------------------------------------------
// Secrets of the process, for logs

const processSecrets = new Set<string>();
const MAX_PROCESS_SECRETS = 1_000;

/**
 * Remembers a secret this process holds (a provider key, a decrypted
 * credential) so that anything logged is scrubbed of it. Bounded: the oldest
 * entries are forgotten first.
 */
export function rememberSecret(secret: string | null | undefined): void {
  if (!secret || secret.length < MIN_SECRET_LENGTH) return;
  processSecrets.delete(secret);
  processSecrets.add(secret);
  if (processSecrets.size > MAX_PROCESS_SECRETS) processSecrets.delete(processSecrets.values().next().value!);
}

export function knownSecrets(): string[] {
  return [...processSecrets];
}

/**
 * Wraps a credential accessor so every secret it hands out is remembered for
 * the call (`used()`) and for the process logs.
 */
export function trackCredentials<A extends unknown[], C extends { secret: string } | null>(
  accessor: (...args: A) => Promise<C>,
): { credential: (...args: A) => Promise<C>; used: () => string[] } {
  const used = new Set<string>();
  return {
    credential: async (...args) => {
      const found = await accessor(...args);
      if (found) {
        used.add(found.secret);
        rememberSecret(found.secret);
      }
      return found;
    },
    used: () => [...used],
  };
}
