import crypto from "node:crypto";

/** JSON with object keys sorted at every level, so equal values always serialise the same way. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** What an approval and its grant are bound to: exactly this tool with exactly this input. */
export function callFingerprint(tool: string, input: unknown): string {
  return `sha256:${crypto.createHash("sha256").update(canonicalJson({ tool, input })).digest("hex")}`;
}

export function resultHash(value: unknown): string {
  return `sha256:${crypto.createHash("sha256").update(canonicalJson(value ?? null)).digest("hex")}`;
}
