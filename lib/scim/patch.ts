import { z } from "zod";
import { AppError } from "../errors";

/**
 * A PATCH body (RFC 7644 §3.5.2). Identity providers differ in the details: Okta sends `{"op":"replace","value":
 * {"active":false}}` with no path, Entra ID `{"op":"Replace","path":"active","value":"False"}` (a capitalised op, a
 * boolean as a string); both are read.
 */
export const patchBodySchema = z.looseObject({
  Operations: z
    .array(
      z.looseObject({
        op: z.string().transform((op) => op.toLowerCase()).pipe(z.enum(["add", "replace", "remove"])),
        path: z.string().max(500).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(1000),
});
export type PatchOperation = z.infer<typeof patchBodySchema>["Operations"][number];

/** A patch path: an attribute (of an extension schema, when named), a filter on a multi-valued one, a sub-attribute. */
export interface PatchPath {
  schema?: string;
  attribute: string;
  filter?: { attribute: string; value: unknown };
  sub?: string;
}

const PATH =
  /^(?:(urn:.+):)?([A-Za-z][\w$-]*)(?:\[\s*([A-Za-z][\w$-]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false|-?\d+(?:\.\d+)?)\s*\])?(?:\.([A-Za-z][\w$-]*))?$/i;

/** Reads a path, leaving out the schema when it is `coreSchema` (`urn:…:User:userName` is `userName`). */
export function parsePath(path: string, coreSchema: string): PatchPath {
  const match = PATH.exec(path.trim());
  if (!match) throw new AppError("bad_request:scim_path", `The path ${JSON.stringify(path.slice(0, 200))} cannot be read.`);
  const [, schema, attribute, filterAttribute, filterValue, sub] = match;
  return {
    ...(schema && schema.toLowerCase() !== coreSchema.toLowerCase() ? { schema } : {}),
    attribute: attribute!,
    ...(filterAttribute ? { filter: { attribute: filterAttribute, value: JSON.parse(filterValue!) as unknown } } : {}),
    ...(sub ? { sub } : {}),
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The key `name` has in `object`, matched without regard to case (SCIM attribute names are case-insensitive). */
const keyOf = (object: Json, name: string) => Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;

const sameValue = (a: unknown, b: unknown) => (typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : a === b);

/** Applies one operation to a plain copy of a resource's attributes (`value` objects with no path name several). */
export function applyOperation(resource: Json, operation: PatchOperation, coreSchema: string): Json {
  const next = structuredClone(resource);
  if (operation.path === undefined) {
    if (operation.op === "remove" || !isObject(operation.value)) throw new AppError("bad_request:scim_value", "An operation without a path needs an object of attributes as its value.");
    for (const [path, value] of Object.entries(operation.value)) {
      // A schema URN as a key holds that extension's attributes.
      const paths = path.startsWith("urn:") && isObject(value) ? Object.entries(value).map(([k, v]) => [`${path}:${k}`, v] as const) : [[path, value] as const];
      for (const [p, v] of paths) setAt(next, parsePath(p, coreSchema), operation.op, v);
    }
    return next;
  }
  setAt(next, parsePath(operation.path, coreSchema), operation.op, operation.value);
  return next;
}

function setAt(resource: Json, path: PatchPath, op: PatchOperation["op"], value: unknown): void {
  let container = resource;
  if (path.schema) {
    const key = keyOf(resource, path.schema);
    if (!isObject(resource[key])) resource[key] = {};
    container = resource[key] as Json;
  }
  const key = keyOf(container, path.attribute);
  if (path.filter) return setInFiltered(container, key, path as Required<Pick<PatchPath, "filter">> & PatchPath, op, value);
  if (path.sub) {
    if (op === "remove") {
      if (isObject(container[key])) delete (container[key] as Json)[keyOf(container[key] as Json, path.sub)];
      return;
    }
    if (!isObject(container[key])) container[key] = {};
    const parent = container[key] as Json;
    parent[keyOf(parent, path.sub)] = value;
    return;
  }
  if (op === "remove") delete container[key];
  else if (op === "add" && Array.isArray(container[key]) && Array.isArray(value)) container[key] = [...(container[key] as unknown[]), ...value];
  else if (op === "add" && isObject(container[key]) && isObject(value)) container[key] = { ...(container[key] as Json), ...value };
  else container[key] = value;
}

/** `emails[type eq "work"].value`: the matching entries of a multi-valued attribute; add or replace makes one if none match. */
function setInFiltered(container: Json, key: string, path: PatchPath & { filter: NonNullable<PatchPath["filter"]> }, op: PatchOperation["op"], value: unknown): void {
  const list = Array.isArray(container[key]) ? (container[key] as unknown[]).filter(isObject) : [];
  const matches = (entry: Json) => sameValue(entry[keyOf(entry, path.filter.attribute)], path.filter.value);
  if (op === "remove") {
    container[key] = path.sub ? list.map((e) => (matches(e) ? Object.fromEntries(Object.entries(e).filter(([k]) => k.toLowerCase() !== path.sub!.toLowerCase())) : e)) : list.filter((e) => !matches(e));
    return;
  }
  const update = (entry: Json): Json => (path.sub ? { ...entry, [keyOf(entry, path.sub)]: value } : isObject(value) ? { ...entry, ...value } : entry);
  container[key] = list.some(matches)
    ? list.map((e) => (matches(e) ? update(e) : e))
    : [...list, update({ [path.filter.attribute]: path.filter.value })];
}
