/**
 * Shared pieces of the response schemas (lib/<domain>/*-schemas.ts): what
 * the server hands to `Response.json` on one side, what the browser parses on
 * the other. Written with zod/mini, as the browser bundles them.
 */
import { z } from "zod/mini";

/**
 * A moment as JSON carries it. The server may hand a Date (JSON turns it into
 * its ISO string); the browser reads the string.
 */
export const isoDate = z.pipe(
  z.union([z.string(), z.date()]),
  z.transform((value) => (typeof value === "string" ? value : value.toISOString())),
);

export const nullableDate = z.nullable(isoDate);

/**
 * A value stored as jsonb, which the server holds as `unknown`: the route is
 * not held to a type for it, the browser checks it has this shape.
 */
export const storedJson = <S extends z.core.$ZodType>(schema: S) => z.pipe(z.unknown(), schema);

/** Any JSON object, read as a record (tool inputs, payloads, schemas). */
export const jsonObject = storedJson(z.record(z.string(), z.unknown()));

/** An id made by the server (uuid); not checked for its form, only that it is one. */
export const id = z.string();

/** The reply of a POST that made one thing. */
export const createdIdSchema = z.object({ id });
