import { z } from "zod";
import type { $ZodType, input } from "zod/v4/core";
import { issueWords } from "../issue-words";
import type { Database } from "../db/client";
import { AppError } from "../errors";
import { findNul } from "../text";
import { getServer, type Server } from "../server";
import { hasRole, roleLabels } from "../access/role-names";
import type { PublicUser } from "../workspaces/users";
import type { Role } from "../db/schema";
import { markWorkspaceOpened, type WorkspaceMembership } from "../workspaces/workspaces";
import { getEnv, parseEnv } from "../env";
import { sessionWithWorkspace, type SessionWithWorkspace } from "../auth/sessions";
import { sessionClaimOfRequest, userFromRequest } from "./auth";
import { errorResponse } from "./errors";
import { can, capabilities, type Capability } from "../access/capabilities";
import { readBodyText } from "./body";
import { jsonResponse } from "./json";
import { originPolicyFromEnv, refusedOrigin } from "./origin";
import type { EventStreamReply } from "./sse";
import { actWithKey, type ActingKey } from "../acting-key";
import { apiKeyAccess, bearerApiKey } from "../api-keys/key-access";

export const WORKSPACE_HEADER = "x-clawdeck-workspace";
export const WORKSPACE_COOKIE = "clawdeck-workspace";

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * The JSON a handler returns, checked against the route's `response` schema (what the browser parses it with), or an
 * event stream for a client that asked for one.
 */
type Reply<R extends $ZodType | undefined> = R extends $ZodType ? input<R> | JsonReply<input<R>> | EventStreamReply : unknown;

declare const replyBody: unique symbol;
/** A response (201, 202) whose JSON body is `T`. */
export type JsonReply<T> = Response & { readonly [replyBody]: T };

/** What the README's API table says of a route (`npm run docs:api` writes the table from these). */
export interface RouteDoc {
  /** What the route does and answers, in a few words. */
  summary: string;
  /**
   * Who may call it, when the least role of `can` (else member, signed in or none) does not say it all: "the chat's
   * owner", "member (spend: reviewer)".
   */
  role?: string;
}

/** Whom a handler serves: a member of the current workspace, any signed-in person, or anyone. */
export type RouteAudience = "workspace" | "user" | "public";

/** What a handler says of itself, read without calling it (the API table in the README is made from these). */
export interface RouteDescription {
  audience: RouteAudience;
  doc?: RouteDoc;
  can?: Capability;
  params?: $ZodType;
  query?: $ZodType;
  body?: $ZodType;
}

const descriptions = new WeakMap<object, RouteDescription>();

/** What a route handler says of itself, if it was made by `route`, `userRoute`, `publicRoute` or `documented`. */
export function describeRoute(handler: unknown): RouteDescription | undefined {
  return typeof handler === "function" ? descriptions.get(handler) : undefined;
}

/** Keeps a handler's description beside it, for `describeRoute`. */
function described<H extends object>(handler: H, audience: RouteAudience, options: Omit<RouteDescription, "audience">): H {
  const { doc, can, params, query, body } = options;
  descriptions.set(handler, { audience, doc, can, params, query, body });
  return handler;
}

/**
 * Documents a handler that none of the route wrappers makes (the health check, sign-in, the door), as one anybody may
 * call unless `doc.role` says otherwise. It returns a new function, so one handler exported for several methods can
 * say something of each.
 */
export function documented<H extends (...args: never[]) => Promise<Response>>(doc: RouteDoc, handler: H): H {
  const each = (...args: Parameters<H>) => handler(...args);
  return described(each as unknown as H, "public", { doc });
}

interface RouteOptions<P extends Schema, Q extends Schema, B extends Schema, R extends $ZodType | undefined = undefined> {
  /** What the README's API table says of the route. */
  doc?: RouteDoc;
  /** The action of the capability table this route takes; omit for any member. Checked before the body is read. */
  can?: Capability;
  /** `false` for routes that act on the user rather than on a workspace. */
  workspace?: boolean;
  /**
   * `false` for what only a person signed in may do (making API keys, SCIM tokens, single sign-on settings): a key
   * that could do it could outlive its own revocation.
   */
  apiKeys?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The schema of the JSON this route answers with, exported from the domain
   * beside the data: the handler's return is type-checked against its input
   * side, and the browser parses the reply with it. Not parsed here.
   */
  response?: R;
}

export interface RouteContext<P extends Schema, Q extends Schema, B extends Schema> {
  req: Request;
  server: Server;
  db: Database;
  user: PublicUser;
  workspace: WorkspaceMembership;
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  /**
   * Whether the request's session, membership and role still hold, asked again
   * now: a long-lived response (an event stream) ends when they stop holding.
   */
  stillAllowed: AccessCheck;
}

/** Asks again whether a request's access holds; a stream asks every `everyMs` (`CLAWDECK_STREAM_RECHECK_SECONDS`). */
export interface AccessCheck {
  (): Promise<boolean>;
  everyMs: number;
}

export interface UserRouteContext<P extends Schema, Q extends Schema, B extends Schema>
  extends Omit<RouteContext<P, Q, B>, "workspace" | "stillAllowed"> {}

type NextContext = { params: Promise<Record<string, string | string[] | undefined>> };

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, surface: "params" | "query" | "body"): z.output<S> {
  // PostgreSQL cannot store a NUL character in text: refuse it here, once, for every route.
  const nulAt = findNul(value);
  if (nulAt !== null) {
    throw new AppError("bad_request:nul", `Invalid ${surface}: ${nulAt} contains a NUL character, which is not allowed.`, {
      details: [{ path: nulAt, message: "NUL characters are not allowed." }],
    });
  }
  const result = schema.safeParse(value, { error: issueWords });
  if (!result.success) {
    throw new AppError(`bad_request:${surface}`, result.error.issues[0]?.message ?? `Something in the ${surface} is not valid.`, {
      details: result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return result.data;
}

/** The JSON body of a request, read with `readBodyText`'s cap. Only `application/json` (parameters such as charset allowed) is read. */
async function readBody(req: Request, maxBytes: number): Promise<unknown> {
  const mediaType = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") throw new AppError("bad_request:content_type", "Send the body as application/json.");
  const text = await readBodyText(req, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request:json", "The body is not valid JSON.");
  }
}

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/**
 * Refuses state-changing requests not sent by the app's own pages (cookies alone are not intent):
 * the rule is in lib/http/origin.ts; the app's origin comes from CLAWDECK_ORIGIN or AUTH_URL.
 */
function assertSameOrigin(req: Request) {
  const env = process.env.NODE_ENV === "test" ? parseEnv(process.env) : getEnv();
  const refused = refusedOrigin(req, originPolicyFromEnv(env));
  if (refused) throw new AppError("forbidden:origin", `Cross-site requests are not allowed (${refused}).`);
}

/** The workspace a request names (header, `workspace` query parameter, cookie), if any. */
function namedWorkspace(req: Request): string | null {
  return req.headers.get(WORKSPACE_HEADER) ?? new URL(req.url).searchParams.get("workspace") ?? readCookie(req, WORKSPACE_COOKIE) ?? null;
}

/** The live session of a request with the person's membership in the named (else last opened) workspace: one query. */
async function sessionAndWorkspace(
  db: Database,
  req: Request,
  named: { slug: string } | { id: string } | null,
): Promise<SessionWithWorkspace | null> {
  const claim = await sessionClaimOfRequest(req);
  return claim ? sessionWithWorkspace(db, claim.sessionId, claim.userId, named) : null;
}

/**
 * The current workspace of a request, from a membership already read with the session: the one the request names (the
 * header a browser tab sends, the `workspace` query parameter for EventSource, which cannot send headers, or the
 * cookie of the last workspace opened), else the one the person opened last. Naming a workspace the person does not
 * belong to is refused, never silently replaced; a named one becomes their last opened (written only when it is not
 * already).
 */
async function workspaceOfSession(db: Database, req: Request, found: SessionWithWorkspace, named: string | null): Promise<WorkspaceMembership> {
  if (named) {
    if (!found.workspace) throw new AppError("forbidden:workspace", "You are not a member of that workspace.");
    if (!found.openedLast) await markWorkspaceOpened(db, found.user.id, found.workspace.id);
    return found.workspace;
  }
  if (!found.workspace) throw new AppError("forbidden:workspace", "You are not a member of any workspace.");
  return found.workspace;
}

/** Who is asking, before anything they sent is read: the origin rule, then the signed-in person (or null). */
async function identify(req: Request, findUser: (db: Database) => Promise<PublicUser | null> = () => userFromRequest(req)) {
  assertSameOrigin(req);
  const server = await getServer();
  return { server, user: await findUser(server.db) };
}

/** What the request says, read once the asker may make it: params, query and the body, each checked by its schema. */
async function readInputs<P extends Schema, Q extends Schema, B extends Schema>(
  options: RouteOptions<P, Q, B, $ZodType | undefined>,
  req: Request,
  nextContext: NextContext | undefined,
  server: Server,
) {
  const rawParams = (await nextContext?.params) ?? {};
  const params = (options.params ? parseOrThrow(options.params, rawParams, "params") : undefined) as Out<P>;
  const query = (
    options.query ? parseOrThrow(options.query, Object.fromEntries(new URL(req.url).searchParams), "query") : undefined
  ) as Out<Q>;
  const body = (options.body ? parseOrThrow(options.body, await readBody(req, server.env.CLAWDECK_MAX_BODY_BYTES), "body") : undefined) as Out<B>;
  return { params, query, body };
}

async function prepareRequest<P extends Schema, Q extends Schema, B extends Schema>(
  options: RouteOptions<P, Q, B, $ZodType | undefined>,
  req: Request,
  nextContext: NextContext | undefined,
) {
  const { server, user } = await identify(req);
  return { req, server, db: server.db, user, ...(await readInputs(options, req, nextContext, server)) };
}

async function prepare<P extends Schema, Q extends Schema, B extends Schema>(
  options: RouteOptions<P, Q, B, $ZodType | undefined>,
  req: Request,
  nextContext: NextContext | undefined,
) {
  const ctx = await prepareRequest(options, req, nextContext);
  if (!ctx.user) throw new AppError("unauthorized:session", "Sign in to continue.");
  return { ...ctx, user: ctx.user };
}

/**
 * Wraps a route handler that acts in the current workspace: session,
 * membership and the capability first, then zod validation of params, query
 * and body (nobody's body is read for a request they may not make). The
 * handler returns data (sent as JSON 200) or a Response; anything thrown
 * becomes the JSON error shape with its status.
 */
export function route<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined, R extends $ZodType | undefined = undefined>(
  options: RouteOptions<P, Q, B, R>,
  handler: (ctx: RouteContext<P, Q, B>) => Promise<Reply<R>>,
) {
  return described(async (req: Request, nextContext?: NextContext): Promise<Response> => {
    try {
      const bearer = bearerApiKey(req);
      const { server, user, workspace, stillAllowed, key } = bearer === null ? await sessionAccess(req) : await keyAccess(req, bearer, options);
      if (options.can && !can(workspace.role, options.can)) {
        throw new AppError(`forbidden:role`, `This needs the ${roleLabels[capabilities[options.can]].toLowerCase()} role or higher in ${workspace.name}.`);
      }
      const inputs = await readInputs(options, req, nextContext, server);
      const work = () => handler({ req, server, db: server.db, user, ...inputs, workspace, stillAllowed: allowedWhile(server, stillAllowed, workspace.role) });
      return toResponse(await (key ? actWithKey(key, work) : work()));
    } catch (error) {
      return errorResponse(error);
    }
  }, "workspace", options);
}

/** Who a request acts as, in which workspace, and how to ask again whether that still holds. */
interface Access {
  server: Server;
  user: PublicUser;
  workspace: WorkspaceMembership;
  /** The person's role in the workspace now, or null when they may no longer act there. */
  stillAllowed: () => Promise<Role | null>;
  key?: ActingKey;
}

/**
 * A person signed in: the session and the membership read together; the refusals keep their order (no session,
 * then the workspace, then the capability, then bad params, query or body).
 */
async function sessionAccess(req: Request): Promise<Access> {
  const named = namedWorkspace(req);
  let found: SessionWithWorkspace | null = null;
  const { server, user } = await identify(req, async (db) => {
    found = await sessionAndWorkspace(db, req, named ? { slug: named } : null);
    return found?.user ?? null;
  });
  if (!user) throw new AppError("unauthorized:session", "Sign in to continue.");
  const workspace = await workspaceOfSession(server.db, req, found!, named);
  const stillAllowed = async () => {
    const again = await sessionAndWorkspace(server.db, req, { id: workspace.id });
    return again?.user.id === user.id && again.workspace ? again.workspace.role : null;
  };
  return { server, user, workspace, stillAllowed };
}

/**
 * A script with an API key (`Authorization: Bearer ck_…`): its maker, in the key's workspace, with the key's role (no
 * higher than the maker's now). No cookie is read and no origin rule applies: a browser cannot send this header to
 * another site without that site's consent. A request that names another workspace is refused.
 */
async function keyAccess(req: Request, bearer: string, options: { apiKeys?: boolean }): Promise<Access> {
  const server = await getServer();
  const { key, user, workspace } = await apiKeyAccess(server.db, bearer);
  if (options.apiKeys === false) throw new AppError("forbidden:api_key_scope", API_KEY_SCOPE);
  const named = req.headers.get(WORKSPACE_HEADER) ?? new URL(req.url).searchParams.get("workspace");
  if (named && named !== workspace.slug) throw new AppError("forbidden:workspace", "This API key belongs to another workspace.");
  const stillAllowed = async () => {
    try {
      return (await apiKeyAccess(server.db, bearer)).workspace.role;
    } catch {
      return null;
    }
  };
  return { server, user, workspace, stillAllowed, key };
}

/**
 * `stillAllowed` for a handler, asked every few seconds by streams: the access still holds with at least the role the
 * request was answered with. What a stream sends was chosen for that role (a reviewer reads other people's chats, a
 * member only their own), so a demoted viewer's stream ends and the client reconnects under the rules of the new role.
 */
function allowedWhile(server: Server, roleNow: () => Promise<Role | null>, openedWith: Role): AccessCheck {
  return Object.assign(
    async () => {
      const role = await roleNow();
      return role !== null && hasRole(role, openedWith);
    },
    { everyMs: server.env.CLAWDECK_STREAM_RECHECK_SECONDS * 1000 },
  );
}

const API_KEY_SCOPE = "This cannot be done with an API key: it would outlive the key or act for a person beyond this workspace. Sign in as a person to do it.";

/** Refuses an API key on a route that serves a person rather than a workspace (their account, sign-in). */
function refuseApiKey(req: Request) {
  if (bearerApiKey(req) !== null) throw new AppError("forbidden:api_key_scope", API_KEY_SCOPE);
}

/** Like `route`, for handlers about the signed-in user that need no current workspace. */
export function userRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined, R extends $ZodType | undefined = undefined>(
  options: Omit<RouteOptions<P, Q, B, R>, "can" | "workspace">,
  handler: (ctx: UserRouteContext<P, Q, B>) => Promise<Reply<R>>,
) {
  return described(async (req: Request, nextContext?: NextContext): Promise<Response> => {
    try {
      refuseApiKey(req);
      return toResponse(await handler(await prepare(options, req, nextContext)));
    } catch (error) {
      return errorResponse(error);
    }
  }, "user", options);
}

/**
 * Like `userRoute`, for the few routes a person without a session may call
 * (accepting an invitation): the same origin rule, body cap and validation,
 * with `user` null when nobody is signed in.
 */
export function publicRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  options: Omit<RouteOptions<P, Q, B>, "can" | "workspace">,
  handler: (ctx: Omit<UserRouteContext<P, Q, B>, "user"> & { user: PublicUser | null }) => Promise<unknown>,
) {
  return described(async (req: Request, nextContext?: NextContext): Promise<Response> => {
    try {
      refuseApiKey(req);
      return toResponse(await handler(await prepareRequest(options, req, nextContext)));
    } catch (error) {
      return errorResponse(error);
    }
  }, "public", options);
}

function toResponse(result: unknown): Response {
  if (result instanceof Response) return result;
  if (result === undefined) return new Response(null, { status: 204 });
  return jsonResponse(result, { headers: { "Cache-Control": "no-store" } });
}

export function created<T>(data: T): JsonReply<T> {
  return jsonResponse(data, { status: 201, headers: { "Cache-Control": "no-store" } }) as JsonReply<T>;
}

/** 202: the work was started (a run), and goes on after the reply. */
export function accepted<T>(data: T): JsonReply<T> {
  return jsonResponse(data, { status: 202, headers: { "Cache-Control": "no-store" } }) as JsonReply<T>;
}
