/**
 * The reviewer's edit form, read from the JSON Schema of a tool's input (the
 * one the model and the door see). Only flat objects of plain values become a
 * form; any other shape is edited as JSON.
 */

export type FormField =
  | { key: string; label: string; kind: "text" | "longtext"; required: boolean; description?: string; maxLength?: number }
  | { key: string; label: string; kind: "number"; required: boolean; description?: string; integer: boolean }
  | { key: string; label: string; kind: "boolean"; required: boolean; description?: string }
  | { key: string; label: string; kind: "choice"; required: boolean; description?: string; options: string[] };

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => !!v && typeof v === "object" && !Array.isArray(v);

/** "dueDate" → "Due date"; "channel" → "Channel". */
export function labelOf(key: string): string {
  const words = key.replace(/[_-]+/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function fieldOf(key: string, schema: unknown, required: boolean): FormField | null {
  if (!isObject(schema)) return null;
  const label = typeof schema.title === "string" ? schema.title : labelOf(key);
  const description = typeof schema.description === "string" ? schema.description : undefined;
  const base = { key, label, required, ...(description ? { description } : {}) };
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")) {
    return { ...base, kind: "choice", options: schema.enum as string[] };
  }
  switch (schema.type) {
    case "string": {
      const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
      // A pattern, a format or a short cap means a name or an address; anything else is prose.
      const short = typeof schema.pattern === "string" || typeof schema.format === "string" || (maxLength !== undefined && maxLength <= 200);
      return { ...base, kind: short ? "text" : "longtext", ...(maxLength ? { maxLength } : {}) };
    }
    case "number":
    case "integer":
      return { ...base, kind: "number", integer: schema.type === "integer" };
    case "boolean":
      return { ...base, kind: "boolean" };
    default:
      return null;
  }
}

/** The fields of the form, or null when the input's shape needs the JSON editor. */
export function formFields(schema: Schema | null, input: Record<string, unknown>): FormField[] | null {
  if (!schema || schema.type !== "object" || !isObject(schema.properties)) return null;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: FormField[] = [];
  for (const [key, property] of Object.entries(schema.properties)) {
    const field = fieldOf(key, property, required.has(key));
    if (!field) return null;
    fields.push(field);
  }
  // A value the schema does not name would be dropped by the form: edit such an input as JSON.
  if (Object.keys(input).some((key) => !(key in (schema.properties as Schema)))) return null;
  return fields;
}

export interface InputChange {
  key: string;
  before: unknown;
  after: unknown;
}

/** What the edit changes, key by key (in the original's order, then added keys). */
export function inputChanges(before: Record<string, unknown>, after: Record<string, unknown>): InputChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).map((key) => ({ key, before: before[key], after: after[key] }));
}

/** How a value reads in the diff: text as it is, anything else as JSON; absent as an em dash. */
export function shownValue(value: unknown): string {
  if (value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
