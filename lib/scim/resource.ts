import { z } from "zod";
import { AppError, pgErrorCode } from "../errors";

/** Attributes kept in their own columns or made by the server: never stored among a resource's other attributes. */
const SERVER_ATTRIBUTES = new Set(["schemas", "id", "meta", "groups", "password"]);

/**
 * A body's attributes under their canonical names (SCIM attribute names are case-insensitive: `username` is
 * `userName`), checked with `schema`; a body it refuses is `400 invalidValue` naming the attribute.
 */
export function readResource<S extends z.ZodType>(schema: S, body: unknown, canonical: readonly string[]): z.output<S> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new AppError("bad_request:scim_syntax", "The body must be a JSON object.");
  const named = Object.fromEntries(Object.entries(body).map(([key, value]) => [canonical.find((c) => c.toLowerCase() === key.toLowerCase()) ?? key, value]));
  const result = schema.safeParse(named);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new AppError("bad_request:scim_value", `${issue.path.join(".") || "The body"}: ${issue.message}`);
  }
  return result.data;
}

/** The attributes to keep as sent, without the server's own and those in `columns`. */
export function storedAttributes(resource: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resource).filter(([key]) => !SERVER_ATTRIBUTES.has(key) && !columns.includes(key)));
}

/** Runs `work`, turning a unique-index refusal (a concurrent request made the same name) into `409 uniqueness`. */
export async function uniquely<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (pgErrorCode(error) === "23505") throw new AppError("conflict:scim_uniqueness", `${what} already exists here.`);
    throw error;
  }
}

export const isUuid = (id: string) => z.uuid().safeParse(id).success;

/** `true`, `false`, or the strings Entra ID sends for them (`"True"`, `"False"`). */
export const booleanish = z.union([z.boolean(), z.string().regex(/^(true|false)$/i).transform((v) => v.toLowerCase() === "true")]);
