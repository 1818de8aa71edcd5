import path from "node:path";
import { z } from "zod";
import { parseOrigins } from "./http/origin";

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== "" ? value.trim() : undefined));

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  CLAWDECK_DATA_DIR: z.string().default("./data"),
  AUTH_SECRET: optionalString.pipe(z.string().min(32, "AUTH_SECRET must be at least 32 characters").optional()),
  CLAWDECK_ENCRYPTION_KEY: optionalString.pipe(
    z
      .string()
      .refine((v) => Buffer.from(v, "base64").length === 32, "CLAWDECK_ENCRYPTION_KEY must be 32 bytes, base64-encoded")
      .optional(),
  ),
  CLAWDECK_OWNER_EMAIL: optionalString.pipe(z.email().optional()),
  CLAWDECK_OWNER_PASSWORD: optionalString.pipe(z.string().min(8, "CLAWDECK_OWNER_PASSWORD must be at least 8 characters").optional()),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString.pipe(z.url().optional()),
  CLAWDECK_DEFAULT_MODEL: optionalString,
  CLAWDECK_OFFLINE_DELAY_MS: z.coerce.number().int().min(0).max(1000).default(25),
  CLAWDECK_OFFLINE_MISSION_MS: z.coerce.number().int().min(0).max(60_000).default(3000),
  /** Where `slack.post` sends (origin, optionally with a path prefix); only an operator can change it. */
  CLAWDECK_SLACK_BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/, error: "CLAWDECK_SLACK_BASE_URL must be an http(s) URL" }).optional()),
  CLAWDECK_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(12),
  // The origins the app is served from (comma-separated): writes from any other origin are refused.
  CLAWDECK_ORIGIN: optionalString.pipe(
    z
      .string()
      .refine((v) => v.split(",").every((o) => URL.canParse(o.trim()) && /^https?:$/.test(new URL(o.trim()).protocol)), "CLAWDECK_ORIGIN must be http(s) origins, comma-separated")
      .transform(parseOrigins)
      .optional(),
  ),
  AUTH_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** How many reverse proxies in front of the app append to X-Forwarded-For; 0 trusts none. */
  CLAWDECK_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /** Runs one person may start (chat messages, room posts) per window; 0 turns the limit off. */
  CLAWDECK_RUN_START_LIMIT: z.coerce.number().int().min(0).max(100_000).default(30),
  /** Invitations one person may create per hour (what bounds probing addresses with invitations). */
  CLAWDECK_INVITATIONS_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(100),
  /** The SMTP server outgoing email goes through (`smtp://user:pass@host:587`, `smtps://…`); unset: nothing is emailed. */
  CLAWDECK_SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/, error: "CLAWDECK_SMTP_URL must be an smtp:// or smtps:// URL" }).optional()),
  CLAWDECK_MAIL_FROM: optionalString,
  CLAWDECK_RUN_START_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Largest request body a JSON route reads, in bytes; larger ones get 413 before anything is parsed. */
  CLAWDECK_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(1024 * 1024),
  /** How long a gated call through the door (MCP) waits for a reviewer before answering that the approval is still open. */
  CLAWDECK_DOOR_WAIT_SECONDS: z.coerce.number().min(0).max(3_600).default(120),
  /** How often an open event stream asks again whether its viewer's session, membership and role still hold. */
  CLAWDECK_STREAM_RECHECK_SECONDS: z.coerce.number().min(0.1).max(60).default(8),
  /** Largest file of an agent's computer, in MB. */
  CLAWDECK_AGENT_FILE_MAX_MB: z.coerce.number().min(0.001).max(1024).default(10),
  /** Most an agent's computer may hold, in MB and in files. */
  CLAWDECK_AGENT_STORAGE_MAX_MB: z.coerce.number().min(0.01).max(100_000).default(200),
  CLAWDECK_AGENT_FILES_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Where agents' workspaces are copied to while they run commands (a temporary folder by default). */
  CLAWDECK_COMPUTERS_DIR: optionalString,
  /** Longest a command in an agent's computer may run, in seconds (a call may ask for less). */
  CLAWDECK_COMMAND_MAX_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  /** Hosts (and host:port) the fetch tool may reach besides the public internet, comma-separated; see lib/net/safe-fetch.ts. */
  CLAWDECK_FETCH_ALLOW: z.string().default(""),
  /**
   * OpenTelemetry's standard variables: the collector runs are exported to as traces (OTLP over HTTP; unset: nothing
   * is loaded or exported), the headers sent with every export (`key=value,key2=value2`, values URL-encoded), and the
   * service name the spans carry.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL" }).optional(),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: optionalString.pipe(
    z
      .string()
      .refine(isOtlpHeaders, "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs, comma-separated, values URL-encoded")
      .transform(parseOtlpHeaders)
      .optional(),
  ),
  OTEL_SERVICE_NAME: optionalString.pipe(z.string().default("clawdeck")),
  /** How long one export to the collector may take, in milliseconds (retries included), before its spans are dropped. */
  OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(1).max(600_000).default(10_000),
});

/**
 * An identity provider the operator configured for single sign-on: `CLAWDECK_OIDC_<NAME>_ISSUER`, `_CLIENT_ID`,
 * `_CLIENT_SECRET` and an optional `_LABEL`. Its next-auth id is `oidc-<name>`.
 */
export interface OidcProviderConfig {
  /** The NAME in lower case, `_` as `-`: `ACME_SSO` is `acme-sso`. */
  name: string;
  id: string;
  /** What the sign-in button says after "Sign in with". */
  label: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const OIDC_KEY = /^CLAWDECK_OIDC_([A-Z0-9]+(?:_[A-Z0-9]+)*)_(ISSUER|CLIENT_ID|CLIENT_SECRET|LABEL)$/;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

// The issuer is where discovery, the token request and the keys come from: https, or http on this machine only.
const issuerSchema = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).refine((v) => {
  const url = new URL(v);
  return url.protocol === "https:" || LOOPBACK_HOSTS.has(url.hostname);
}, "must be https (http only on localhost or 127.0.0.1)");

const oidcProviderSchema = z.object({
  ISSUER: z.string().trim().pipe(issuerSchema).transform((v) => v.replace(/\/+$/, "")),
  CLIENT_ID: z.string().trim().min(1, "is required"),
  CLIENT_SECRET: z.string().trim().min(1, "is required"),
  LABEL: z.string().trim().max(60, "must be at most 60 characters").optional(),
});

const titleCase = (name: string) => name.split("_").map((w) => w.charAt(0) + w.slice(1).toLowerCase()).join(" ");

/** Every `CLAWDECK_OIDC_<NAME>_…` group, in name order; a group missing a part is an issue naming the variable. */
function parseOidcProviders(source: Record<string, string | undefined>): { providers: OidcProviderConfig[]; issues: string[] } {
  const groups = new Map<string, Record<string, string>>();
  for (const [key, value] of Object.entries(source)) {
    const match = OIDC_KEY.exec(key);
    if (!match || value === undefined || value.trim() === "") continue;
    groups.set(match[1]!, { ...groups.get(match[1]!), [match[2]!]: value });
  }
  const providers: OidcProviderConfig[] = [];
  const issues: string[] = [];
  for (const NAME of [...groups.keys()].sort()) {
    const parsed = oidcProviderSchema.safeParse({ ISSUER: "", CLIENT_ID: "", CLIENT_SECRET: "", ...groups.get(NAME) });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push(`  CLAWDECK_OIDC_${NAME}_${issue.path.join(".")}: ${issue.message}`);
      continue;
    }
    const name = NAME.toLowerCase().replaceAll("_", "-");
    const { ISSUER, CLIENT_ID, CLIENT_SECRET, LABEL } = parsed.data;
    providers.push({ name, id: `oidc-${name}`, label: LABEL || titleCase(NAME), issuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  }
  return { providers, issues };
}

export type Env = z.infer<typeof envSchema> & { oidcProviders: OidcProviderConfig[] };

function isOtlpHeaders(value: string): boolean {
  try {
    return value.split(",").every((pair) => pair.trim() === "" || /^\s*[^=\s][^=]*=/.test(pair)) && !!parseOtlpHeaders(value);
  } catch {
    return false;
  }
}

/** `key=value,key2=value2` with URL-encoded values, as OpenTelemetry's variables write headers. */
function parseOtlpHeaders(value: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value.split(",")) {
    const at = pair.indexOf("=");
    if (at < 0) continue;
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

let cached: Env | undefined;

/** Parses the environment once; a bad value stops the process with the variable named. */
export function getEnv(source: Record<string, string | undefined> = process.env): Env {
  if (source !== process.env) return parseEnv(source);
  cached ??= parseEnv(source);
  return cached;
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  const oidc = parseOidcProviders(source);
  if (!result.success || oidc.issues.length > 0) {
    const lines = (result.error?.issues ?? []).map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${[...lines, ...oidc.issues].join("\n")}`);
  }
  return { ...result.data, oidcProviders: oidc.providers };
}

export function dataDir(env: Env = getEnv()): string {
  return path.resolve(env.CLAWDECK_DATA_DIR);
}
