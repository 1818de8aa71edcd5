/**
 * Cutting and cleaning text that ends up in JSON, the database or a stream.
 *
 * JavaScript strings are UTF-16: an emoji is two code units (a surrogate
 * pair), and `slice` can cut between them. A lone surrogate is not valid
 * Unicode: PostgreSQL refuses it in `jsonb` ("Unicode low surrogate must
 * follow a high surrogate") and in `text` once encoded, and a NUL character
 * is refused by both (`\u0000 cannot be converted to text`). So every cut of
 * person or model text goes through `safeSlice`/`truncate`, and text from
 * outside (fetched pages, tool output, model output) goes through `cleanText`
 * before it is stored.
 */

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Moves a cut index back by one when it would land between the two halves of a surrogate pair. */
function boundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  return isHigh(text.charCodeAt(index - 1)) && isLow(text.charCodeAt(index)) ? index - 1 : index;
}

/**
 * Like `text.slice(start, end)` with non-negative indexes in code units, but
 * never splits a character: a cut that would fall inside a surrogate pair
 * moves back before it. Consecutive pieces cut at the same indexes still join
 * back into the whole text.
 */
export function safeSlice(text: string, start: number, end: number = text.length): string {
  const from = boundary(text, Math.max(0, Math.min(start, text.length)));
  const to = boundary(text, Math.max(0, Math.min(end, text.length)));
  return to > from ? text.slice(from, to) : "";
}

/** The text cut to at most `max` code units (suffix included) on a character boundary, with `suffix` when it was cut. */
export function truncate(text: string, max: number, suffix = ""): string {
  if (text.length <= max) return text;
  return safeSlice(text, 0, Math.max(0, max - suffix.length)) + suffix;
}

/** Whether a string ends with the first half of a surrogate pair (its second half is still to come). */
export function endsInsidePair(text: string): boolean {
  return text.length > 0 && isHigh(text.charCodeAt(text.length - 1));
}

/** Lone surrogates replaced by U+FFFD, so the text is valid Unicode. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

const NUL = /\u0000/g;

export function hasNul(text: string): boolean {
  return text.includes("\u0000");
}

/** Text PostgreSQL accepts: NUL characters removed, lone surrogates replaced. */
export function cleanText(text: string): string {
  return wellFormed(text.replace(NUL, ""));
}

/** `cleanText` applied to every string (and object key) of a JSON-like value. */
export function cleanDeep<T>(value: T): T {
  if (typeof value === "string") return cleanText(value) as T;
  if (Array.isArray(value)) return value.map((item) => cleanDeep(item)) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[cleanText(key)] = cleanDeep(item);
    return out as T;
  }
  return value;
}

/** The first path (`body.text`, `query.q`) of a string holding a NUL character in a JSON-like value, or null. */
export function findNul(value: unknown, path = ""): string | null {
  if (typeof value === "string") return hasNul(value) ? path || "value" : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (hasNul(key)) return here;
      const found = findNul(item, here);
      if (found) return found;
    }
  }
  return null;
}
