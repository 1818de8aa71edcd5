import { AppError } from "../errors";
import { schemaIds } from "./protocol";

/** The attributes a list may be filtered on, by resource. */
const filterable = {
  user: ["id", "userName", "externalId"],
  group: ["id", "displayName", "externalId"],
} as const;

export type ScimFilter<K extends keyof typeof filterable> = { attribute: (typeof filterable)[K][number]; value: string };

const FILTER = /^\s*([A-Za-z][\w:.-]*)\s+(eq)\s+("(?:[^"\\]|\\.)*")\s*$/i;

/**
 * Reads a list's `filter`: equality on one attribute (`userName eq "rita@example.com"`), which is what identity
 * providers send to find a person or group before they make it. Attribute names are case-insensitive and may carry
 * their schema (`urn:…:User:userName`); anything else is `400 invalidFilter` rather than a silently wrong list.
 */
export function parseFilter<K extends keyof typeof filterable>(kind: K, text: string | null): ScimFilter<K> | null {
  if (text === null || text.trim() === "") return null;
  const match = FILTER.exec(text);
  const refused = (why: string) => new AppError("bad_request:scim_filter", `The filter ${JSON.stringify(text.slice(0, 200))} cannot be read: ${why}`);
  if (!match) throw refused(`use the form ${kind === "user" ? "userName" : "displayName"} eq "value".`);
  const schema = kind === "user" ? schemaIds.user : schemaIds.group;
  const named = match[1]!.toLowerCase().startsWith(`${schema.toLowerCase()}:`) ? match[1]!.slice(schema.length + 1) : match[1]!;
  const attribute = filterable[kind].find((a) => a.toLowerCase() === named.toLowerCase());
  if (!attribute) throw refused(`only ${filterable[kind].join(", ")} can be filtered on.`);
  let value: unknown;
  try {
    value = JSON.parse(match[3]!);
  } catch {
    throw refused("the value is not a valid quoted string.");
  }
  return { attribute, value: String(value) };
}

/** `startIndex` and `count` of a list (RFC 7644 §3.4.2.4): below 1 counts as 1, a negative count as 0, at most `maxCount`. */
/** The largest `startIndex` or `count` read (PostgreSQL's integer). */
const MAX_INDEX = 2_147_483_647;

export function parsePage(params: URLSearchParams, maxCount: number): { startIndex: number; count: number } {
  const number = (name: string, fallback: number) => {
    const raw = params.get(name);
    if (raw === null || raw.trim() === "") return fallback;
    if (!/^-?\d+$/.test(raw.trim())) throw new AppError("bad_request:scim_value", `${name} must be a whole number.`);
    const value = Number(raw);
    // An offset past what the database counts is no page anyone has: refused, never sent to the query.
    if (value > MAX_INDEX) throw new AppError("bad_request:scim_value", `${name} must be at most ${MAX_INDEX}.`);
    return value;
  };
  return { startIndex: Math.max(1, number("startIndex", 1)), count: Math.min(maxCount, Math.max(0, number("count", maxCount))) };
}

/** Whether a group's members are asked for: not when `excludedAttributes` names them (Entra ID's existence checks). */
export function withMembers(params: URLSearchParams): boolean {
  const excluded = (params.get("excludedAttributes") ?? "").split(",").map((a) => a.trim().toLowerCase());
  return !excluded.includes("members");
}
