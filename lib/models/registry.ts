import { AppError } from "../errors";
import { createAnthropicProvider } from "./anthropic";
import { createOfflineProvider, OFFLINE_MODEL } from "./offline";
import type { ModelProvider } from "./types";

export interface ResolvedModel {
  provider: ModelProvider;
  /** The model id sent to the provider. */
  model: string;
  /** The spec as written on the agent (`offline`, `claude-sonnet-4-6`, `glm:glm-4.6`). */
  spec: string;
  offline: boolean;
}

export type ModelResolver = (spec: string) => ResolvedModel;

interface NamedProvider {
  name: string;
  baseURL: string;
  apiKey: string;
}

export interface ModelConfig {
  anthropic?: { apiKey: string; baseURL?: string };
  named: NamedProvider[];
  offlineDelayMs: number;
  /** How long the offline model takes over a mission node's answer, so a crew can be watched at work. */
  offlineMissionMs?: number;
  defaultModel: string;
}

export const DEFAULT_CLAUDE_MODEL = "claude-sonnet-4-6";

/**
 * Providers come from the environment: `ANTHROPIC_API_KEY` (and optionally
 * `ANTHROPIC_BASE_URL`) for Claude, and any number of Anthropic-compatible
 * endpoints as `CLAWDECK_PROVIDER_<NAME>_BASE_URL` + `CLAWDECK_PROVIDER_<NAME>_API_KEY`,
 * picked by the spec `<name>:<model>`.
 */
export function modelConfigFromEnv(env: Record<string, string | undefined>): ModelConfig {
  const named: NamedProvider[] = [];
  for (const [key, value] of Object.entries(env)) {
    const m = key.match(/^CLAWDECK_PROVIDER_([A-Z0-9_]+)_BASE_URL$/);
    if (!m || !value) continue;
    const name = m[1]!.toLowerCase();
    named.push({ name, baseURL: value, apiKey: env[`CLAWDECK_PROVIDER_${m[1]}_API_KEY`] ?? "" });
  }
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  const anthropic = apiKey ? { apiKey, baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined } : undefined;
  return {
    anthropic,
    named: named.sort((a, b) => a.name.localeCompare(b.name)),
    offlineDelayMs: Number(env.CLAWDECK_OFFLINE_DELAY_MS ?? 25),
    offlineMissionMs: Number(env.CLAWDECK_OFFLINE_MISSION_MS ?? 3000),
    defaultModel: env.CLAWDECK_DEFAULT_MODEL?.trim() || (anthropic ? DEFAULT_CLAUDE_MODEL : OFFLINE_MODEL),
  };
}

/** Every provider API key the configuration holds: scrubbed from any model error. */
export function providerKeys(config: ModelConfig): string[] {
  return [config.anthropic?.apiKey, ...config.named.map((p) => p.apiKey)].filter((key): key is string => !!key);
}

/** Why a spec cannot run with this configuration, or null when it can. */
/** The providers a spec may name on this server, as a person reads them: "offline, anthropic, ollama". */
function configuredProviders(config: ModelConfig): string {
  return [OFFLINE_MODEL, ...(config.anthropic ? ["anthropic"] : []), ...config.named.map((p) => p.name)].join(", ");
}

export function checkModelSpec(spec: string, config: ModelConfig): string | null {
  const trimmed = spec.trim();
  if (!trimmed) return "Choose a model.";
  if (trimmed === OFFLINE_MODEL) return null;
  const configured = configuredProviders(config);
  const colon = trimmed.indexOf(":");
  if (colon > 0) {
    const name = trimmed.slice(0, colon);
    const model = trimmed.slice(colon + 1);
    if (!model) return `Name a model after "${name}:".`;
    if (name === "anthropic") {
      return config.anthropic ? null : `Claude is not configured on this server (ANTHROPIC_API_KEY is not set); configured: ${configured}.`;
    }
    if (!config.named.some((p) => p.name === name)) {
      return `There is no provider named "${name}" on this server; configured: ${configured}. An operator adds one with CLAWDECK_PROVIDER_${name.toUpperCase()}_BASE_URL.`;
    }
    return null;
  }
  if (config.anthropic) return null;
  // A bare name is a Claude model: say so only of one that looks like it, and never send a person to a key they may not need.
  return /^claude/i.test(trimmed)
    ? `"${trimmed}" is a Claude model, and Claude is not configured on this server (ANTHROPIC_API_KEY is not set); configured: ${configured}.`
    : `"${trimmed}" is not a model of any configured provider; configured: ${configured}. Name another provider's model as <provider>:<model>.`;
}

export function createModelResolver(config: ModelConfig): ModelResolver {
  const offline = createOfflineProvider({ delayMs: config.offlineDelayMs, missionMs: config.offlineMissionMs });
  const cache = new Map<string, ModelProvider>();
  const provider = (key: string, make: () => ModelProvider) => {
    let p = cache.get(key);
    if (!p) cache.set(key, (p = make()));
    return p;
  };
  return (spec) => {
    const problem = checkModelSpec(spec, config);
    if (problem) throw new AppError("unprocessable:model", problem);
    if (spec === OFFLINE_MODEL) return { provider: offline, model: OFFLINE_MODEL, spec, offline: true };
    const colon = spec.indexOf(":");
    if (colon < 0 || spec.startsWith("anthropic:")) {
      const model = colon < 0 ? spec : spec.slice(colon + 1);
      return {
        provider: provider("anthropic", () => createAnthropicProvider({ ...config.anthropic!, name: "anthropic", redact: providerKeys(config) })),
        model,
        spec,
        offline: false,
      };
    }
    const named = config.named.find((p) => p.name === spec.slice(0, colon))!;
    return {
      provider: provider(`named:${named.name}`, () => createAnthropicProvider({ apiKey: named.apiKey, baseURL: named.baseURL, name: named.name, redact: providerKeys(config) })),
      model: spec.slice(colon + 1),
      spec,
      offline: false,
    };
  };
}

/** Specs a person can pick from in the UI, given the configuration. */
export function availableModels(config: ModelConfig): { spec: string; label: string }[] {
  const out = [{ spec: OFFLINE_MODEL, label: "Offline model (no network, follows a command grammar)" }];
  if (config.anthropic) {
    out.push(
      { spec: "claude-opus-4-8", label: "Claude Opus 4.8" },
      { spec: "claude-sonnet-4-6", label: "Claude Sonnet 4.6" },
      { spec: "claude-haiku-4-5", label: "Claude Haiku 4.5" },
    );
  }
  for (const p of config.named) out.push({ spec: `${p.name}:`, label: `${p.name} (name the model after the colon)` });
  return out;
}
