import { z } from "zod";
import { chargeUsage } from "../billing/ledger";
import type { Db } from "../db/client";
import { logError } from "../log";
import type { ModelResolver, ResolvedModel } from "../models/registry";
import { estimateTokens } from "../models/offline";
import type { Usage } from "../models/types";

/**
 * A judge: one model call that answers allow or deny with a reason (or, given
 * its own schema and answer format, any verdict: a comparison's rubric), for
 * any feature that needs a model's verdict (the governor of gated calls is
 * one, comparisons of missions another). The answer is parsed with a zod schema; anything else (an error, a
 * timeout, prose, a malformed verdict) is a failure the caller must treat as
 * "no verdict", never as an allow. Every call is charged to the ledger with
 * the caller's source. The offline model judges by the caller's rule.
 */

export const verdictSchema = z.object({
  decision: z.enum(["allow", "deny"]),
  reason: z.string().trim().min(1).max(1_000),
});
export type Verdict = z.infer<typeof verdictSchema>;

export interface JudgeRequest<T = Verdict> {
  workspaceId: string;
  agentId: string | null;
  /** Model spec, as on an agent (`offline`, `claude-opus-4-8`, `<provider>:<model>`). */
  model: string;
  system: string;
  prompt: string;
  /** Ledger source: who asked for the verdict. */
  source: { kind: "judge" | "governor"; id: string };
  /** Same key, same verdict call: charged once. */
  idempotencyKey: string;
  timeoutMs: number;
  /** The verdict of the offline model: a deterministic rule of the caller's. */
  offlineRule: () => T;
  /** The verdict's shape and how the model is told to write it (default: allow or deny with a reason). */
  answer?: { schema: z.ZodType<T>; format: string; maxTokens?: number; lenient?: boolean };
}

/**
 * No verdict, and why: `outage` when the judge could not be asked or did not answer (unavailable, an error, a
 * timeout), `not_a_verdict` when it answered with something else. Only an outage may ever be failed open: an answer
 * that is not a verdict may be what an injection made of the judge.
 */
export type JudgeFailure = "outage" | "not_a_verdict";

export type JudgeAnswer<T = Verdict> = { ok: true; verdict: T; model: string } | { ok: false; model: string; error: string; failure: JudgeFailure };

const ANSWER_FORMAT = 'Answer with one JSON object and nothing else: {"decision": "allow" | "deny", "reason": "<one or two sentences>"}.';

/** The verdict in a model's text: the first JSON object in it, checked against the schema. */
export function parseVerdict(text: string): Verdict | null {
  return parseAnswer(text, verdictSchema);
}

/**
 * A model's answer as one JSON object, checked against a schema. Strictly (the default, and always for a verdict on
 * an action), the whole text is the object, a ```json fence around it allowed: never an object found inside prose,
 * which an injected page could have made the judge quote. `lenient` takes the first object in the text (a score).
 */
export function parseAnswer<T>(text: string, schema: z.ZodType<T>, options: { lenient?: boolean } = {}): T | null {
  let body = text.trim().replace(/^```(?:json)?\s*\n([\s\S]*)\n```$/, "$1").trim();
  if (options.lenient) body = body.slice(Math.max(0, body.indexOf("{")), body.lastIndexOf("}") + 1);
  if (!body.startsWith("{") || !body.endsWith("}")) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function charge(db: Db, request: JudgeRequest<unknown>, usage: Usage): Promise<void> {
  try {
    await chargeUsage(db, { workspaceId: request.workspaceId, agentId: request.agentId, source: request.source, model: request.model, usage, idempotencyKey: request.idempotencyKey });
  } catch (error) {
    logError(`Could not charge the judge call ${request.idempotencyKey}`, error);
  }
}

const tokens = (input: string, output: string): Usage => ({ inputTokens: estimateTokens(input), outputTokens: estimateTokens(output), cacheReadTokens: 0, cacheWriteTokens: 0 });

export async function askJudge<T = Verdict>(deps: { db: Db; models: ModelResolver }, request: JudgeRequest<T>): Promise<JudgeAnswer<T>> {
  let resolved: ResolvedModel;
  try {
    resolved = deps.models(request.model);
  } catch (error) {
    return { ok: false, model: request.model, error: `The judge model ${request.model} is not available: ${(error as Error).message}`, failure: "outage" };
  }
  if (resolved.offline) {
    const verdict = request.offlineRule();
    await charge(deps.db, request, tokens(request.system + request.prompt, JSON.stringify(verdict)));
    return { ok: true, verdict, model: request.model };
  }
  let text = "";
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let sawUsage = false;
  try {
    const stream = resolved.provider.stream({
      model: resolved.model,
      system: `${request.system}\n\n${request.answer?.format ?? ANSWER_FORMAT}`,
      messages: [{ role: "user", content: [{ type: "text", text: request.prompt }] }],
      tools: [],
      maxTokens: request.answer?.maxTokens ?? 512,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const timeout = new Promise<never>((_, reject) => {
      const timer = setTimeout(() => reject(new Error(`The judge did not answer within ${request.timeoutMs / 1000} s.`)), request.timeoutMs);
      timer.unref?.();
    });
    const read = (async () => {
      for await (const event of stream) {
        if (event.type === "text") text += event.delta;
        if (event.type === "usage") {
          sawUsage = true;
          Object.assign(usage, Object.fromEntries(Object.entries(event.usage).filter(([, v]) => typeof v === "number")));
        }
      }
    })();
    await Promise.race([read, timeout]);
  } catch (error) {
    await charge(deps.db, request, sawUsage ? usage : tokens(request.system + request.prompt, text));
    return { ok: false, model: request.model, error: `The judge could not answer: ${(error as Error).message}`, failure: "outage" };
  }
  await charge(deps.db, request, sawUsage ? usage : tokens(request.system + request.prompt, text));
  const verdict = parseAnswer(text, (request.answer?.schema ?? verdictSchema) as z.ZodType<T>, { lenient: request.answer?.lenient });
  if (!verdict) return { ok: false, model: request.model, error: "The judge's answer was not a verdict.", failure: "not_a_verdict" };
  return { ok: true, verdict, model: request.model };
}
