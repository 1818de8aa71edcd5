import { createHash } from "node:crypto";

/**
 * How the Messages API counts and caches a prompt, as far as a test can tell: the prompt is read as tools, then the
 * system blocks, then every message block, in that order; a block marked `cache_control` is a breakpoint. At most four
 * breakpoints; a prefix shorter than the model's minimum is never cached; a later request whose prefix up to a
 * breakpoint (or up to 20 blocks before one) was written earlier reads it from the cache. Tokens are counted as one per
 * four characters of each block's JSON, a stable stand-in for the real tokenizer.
 */

export const MAX_CACHE_BREAKPOINTS = 4;
/** The minimum cacheable prompt of Sonnet and Opus models. */
export const MIN_CACHEABLE_TOKENS = 1024;
/** How far before a breakpoint the API looks for an earlier cached prefix. */
const LOOKBACK_BLOCKS = 20;

export interface MeasuredUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

type Json = Record<string, unknown>;

/** The prompt's blocks in the order the API reads them. */
function blocksOf(body: Json): Json[] {
  const tools = (body.tools as Json[] | undefined) ?? [];
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : ((body.system as Json[] | undefined) ?? []);
  const messages = (body.messages as { role: string; content: string | Json[] }[]).flatMap((m) =>
    (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).map((block) => ({ role: m.role, ...block })),
  );
  return [...tools, ...system, ...messages];
}

/** How many blocks carry `cache_control`. */
export function countBreakpoints(body: Json): number {
  return blocksOf(body).filter((b) => b.cache_control !== undefined && b.cache_control !== null).length;
}

export const estimateTokens = (block: unknown) => Math.ceil(JSON.stringify(block).length / 4);

/** The tokens a whole request's prompt counts as. */
export function promptTokens(body: Json): number {
  return blocksOf(body).reduce((sum, b) => sum + estimateTokens(withoutMark(b)), 0);
}

function withoutMark(block: Json): Json {
  const { cache_control: _mark, ...rest } = block;
  return rest;
}

/** A server's cache: prefixes written, by the hash of their model and blocks. */
export class PromptCache {
  private readonly written = new Set<string>();

  /** Counts a request's prompt, reading and writing the cache as the API would. */
  measure(body: Json): MeasuredUsage {
    const blocks = blocksOf(body);
    const plain = blocks.map(withoutMark);
    const upTo: number[] = [];
    const keys: string[] = [];
    const hash = createHash("sha256").update(String(body.model));
    let sum = 0;
    for (const block of plain) {
      sum += estimateTokens(block);
      upTo.push(sum);
      hash.update(JSON.stringify(block));
      keys.push(hash.copy().digest("hex"));
    }
    const breakpoints = blocks.flatMap((b, i) => (b.cache_control ? [i] : []));
    let read = 0;
    for (const at of [...breakpoints].reverse()) {
      for (let i = at; i >= Math.max(0, at - LOOKBACK_BLOCKS) && read === 0; i--) if (this.written.has(keys[i]!)) read = upTo[i]!;
      if (read > 0) break;
    }
    let write = 0;
    for (const at of breakpoints) {
      if (upTo[at]! < MIN_CACHEABLE_TOKENS) continue;
      this.written.add(keys[at]!);
      write = Math.max(write, upTo[at]! - read);
    }
    return { input: sum - read - write, cacheRead: read, cacheWrite: write };
  }
}
