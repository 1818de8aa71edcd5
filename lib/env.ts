import path from "node:path";
import { z } from "zod";

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
  CLAWDECK_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(12),
  /** How many reverse proxies in front of the app append to X-Forwarded-For; 0 trusts none. */
  CLAWDECK_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
});

export type Env = z.infer<typeof envSchema>;

let cached: Env | undefined;

/** Parses the environment once; a bad value stops the process with the variable named. */
export function getEnv(source: Record<string, string | undefined> = process.env): Env {
  if (source !== process.env) return parseEnv(source);
  cached ??= parseEnv(source);
  return cached;
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

export function dataDir(env: Env = getEnv()): string {
  return path.resolve(env.CLAWDECK_DATA_DIR);
}
