import type { Database } from "../db/client";
import { AppError } from "../errors";
import { getServer, publicBaseUrl, type Server } from "../server";
import { findNul } from "../text";
import { authenticateScimToken } from "../scim/token";
import { SCIM_CONTENT_TYPE, scimErrorBody } from "../scim/protocol";
import type { ScimScope } from "../scim/users";
import { readBodyText } from "./body";
import { jsonResponse } from "./json";
import { toAppError } from "./errors";

export interface ScimContext {
  req: Request;
  server: Server;
  db: Database;
  /** The workspace the token speaks for, and the base of every `meta.location`. */
  scope: ScimScope;
  params: Record<string, string>;
  search: URLSearchParams;
  /** The request's JSON body (`application/scim+json` or `application/json`), read with the body cap. */
  body(): Promise<unknown>;
}

/** What a SCIM handler answers: a resource or list (200, or `status`), or nothing (204). */
export type ScimReply = { status?: number; body: unknown } | undefined;

type NextContext = { params: Promise<Record<string, string | string[] | undefined>> };

/** The media types a SCIM body may come as (RFC 7644 §3.1: identity providers send either). */
const BODY_TYPES = new Set([SCIM_CONTENT_TYPE, "application/json"]);

async function readScimBody(req: Request, maxBytes: number): Promise<unknown> {
  const mediaType = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!BODY_TYPES.has(mediaType)) throw new AppError("bad_request:content_type", "Send the body as application/scim+json or application/json.");
  const text = await readBodyText(req, maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("bad_request:json", "The body is not valid JSON.");
  }
  // PostgreSQL cannot store a NUL character in text.
  const nulAt = findNul(body);
  if (nulAt !== null) throw new AppError("bad_request:nul", `${nulAt} contains a NUL character, which is not allowed.`);
  return body;
}

export function scimResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  const res = jsonResponse(body, { status, headers: { "Cache-Control": "no-store", ...headers } });
  res.headers.set("Content-Type", `${SCIM_CONTENT_TYPE}; charset=utf-8`);
  return res;
}

/**
 * Wraps a SCIM endpoint (`/scim/v2/…`): no session and no origin rule (an identity provider calls server to server,
 * with no cookies), only the workspace's SCIM token as a Bearer token, checked before anything sent is read. Errors
 * go out in SCIM's own shape, with its `scimType` where one applies.
 */
export function scimRoute(handler: (ctx: ScimContext) => Promise<ScimReply>) {
  return async (req: Request, nextContext?: NextContext): Promise<Response> => {
    try {
      const server = await getServer();
      const { workspaceId } = await authenticateScimToken(server.db, req.headers.get("authorization"));
      const raw = (await nextContext?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, String(v ?? "")]));
      const scope = { workspaceId, baseUrl: `${publicBaseUrl(server.env)}/scim/v2` };
      const reply = await handler({
        req,
        server,
        db: server.db,
        scope,
        params,
        search: new URL(req.url).searchParams,
        body: () => readScimBody(req, server.env.CLAWDECK_MAX_BODY_BYTES),
      });
      if (!reply) return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
      const location = (reply.body as { meta?: { location?: unknown } } | null)?.meta?.location;
      return scimResponse(reply.body, reply.status, reply.status === 201 && typeof location === "string" ? { Location: location } : {});
    } catch (error) {
      const appError = toAppError(error);
      return scimResponse(scimErrorBody(appError), appError.status);
    }
  };
}
