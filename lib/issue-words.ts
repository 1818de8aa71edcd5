import type { $ZodRawIssue } from "zod/v4/core";

/**
 * What is wrong with one value of a request, said for the person who typed
 * it: "The reason is too long: at most 2,000 characters." instead of zod's
 * "Too big: expected string to have <=2000 characters". A message written in
 * a schema wins over this one; an issue this does not know keeps zod's words.
 */
export function issueWords(issue: $ZodRawIssue): string | undefined {
  const field = fieldName(issue.path ?? []);
  if (issue.input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) {
    return `${capital(field)} is missing.`;
  }
  switch (issue.code) {
    case "too_big":
      return `${capital(field)} ${tooBigWords(issue.origin)}: ${bound("at most", issue.maximum, issue.origin, issue.inclusive !== false, issue.exact === true)}.`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) <= 1 && issue.inclusive !== false) return `${capital(field)} is empty: write something.`;
      return `${capital(field)} ${tooSmallWords(issue.origin)}: ${bound("at least", issue.minimum, issue.origin, issue.inclusive !== false, issue.exact === true)}.`;
    case "invalid_format":
      return `${capital(field)} is not ${FORMATS[issue.format] ?? "in the expected form"}.`;
    case "invalid_type":
      return `${capital(field)} should be ${TYPES[issue.expected] ?? issue.expected}.`;
    case "invalid_value":
      return issue.values.length <= 8 ? `${capital(field)} should be one of: ${issue.values.map(String).join(", ")}.` : `${capital(field)} is not one of the choices.`;
    case "not_multiple_of":
      return `${capital(field)} should be a multiple of ${String(issue.divisor)}.`;
    case "unrecognized_keys":
      return `${capital(field)} has ${issue.keys.length === 1 ? "a field" : "fields"} this does not take: ${issue.keys.join(", ")}.`;
    default:
      return undefined;
  }
}

const FORMATS: Record<string, string> = {
  email: "an email address",
  url: "a web address",
  uuid: "a valid id",
  guid: "a valid id",
  datetime: "a date and time",
  date: "a date",
  regex: "in the expected form",
};

const TYPES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "yes or no",
  array: "a list",
  object: "a set of fields",
  date: "a date",
};

function tooBigWords(origin: string): string {
  if (origin === "string") return "is too long";
  if (origin === "array" || origin === "set") return "has too many items";
  return "is too large";
}

function tooSmallWords(origin: string): string {
  if (origin === "string") return "is too short";
  if (origin === "array" || origin === "set") return "has too few items";
  return "is too small";
}

/** "at most 2,000 characters", "less than 1,000,000", "exactly 3 items". */
function bound(word: "at most" | "at least", limit: number | bigint, origin: string, inclusive: boolean, exact: boolean): string {
  const amount = typeof limit === "bigint" ? limit.toLocaleString("en") : Number(limit).toLocaleString("en", { maximumFractionDigits: 6 });
  const unit = origin === "string" ? (Number(limit) === 1 ? " character" : " characters") : origin === "array" || origin === "set" ? (Number(limit) === 1 ? " item" : " items") : "";
  if (exact) return `exactly ${amount}${unit}`;
  const comparison = inclusive ? word : word === "at most" ? "less than" : "more than";
  return `${comparison} ${amount}${unit}`;
}

/** "the reason", "the monthly budget credits", "item 3 of the tools"; "the value" for the body itself. */
function fieldName(path: readonly PropertyKey[]): string {
  const last = path.findLast((p) => typeof p === "string");
  const index = path.length > 0 && typeof path[path.length - 1] === "number" ? (path[path.length - 1] as number) : null;
  const name = typeof last === "string" ? `the ${last.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase()}` : "the value";
  return index === null ? name : `item ${index + 1} of ${name}`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
