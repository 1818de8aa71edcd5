import * as groups from "../../app/scim/v2/Groups/route";
import * as group from "../../app/scim/v2/Groups/[id]/route";
import * as resourceTypes from "../../app/scim/v2/ResourceTypes/route";
import * as schemas from "../../app/scim/v2/Schemas/route";
import * as serviceProviderConfig from "../../app/scim/v2/ServiceProviderConfig/route";
import * as users from "../../app/scim/v2/Users/route";
import * as user from "../../app/scim/v2/Users/[id]/route";
import { params } from "./server";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../lib/db/client";
import { workspaces } from "../../lib/db/schema";

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** The route file a SCIM path is served by, and its `[id]`. */
function handlerOf(method: string, path: string): { handler: Handler; id?: string } {
  const [, kind, id] = /^\/([A-Za-z]+)(?:\/([^/?]+))?/.exec(path)!;
  const modules: Record<string, Record<string, unknown>> = {
    Users: id ? user : users,
    Groups: id ? group : groups,
    ResourceTypes: resourceTypes,
    Schemas: schemas,
    ServiceProviderConfig: serviceProviderConfig,
  };
  const handler = modules[kind!]?.[method] as Handler | undefined;
  if (!handler) throw new Error(`No ${method} handler for ${path}`);
  return { handler, id };
}

/**
 * Calls the SCIM endpoints as an identity provider does: `Authorization: Bearer <token>`, `application/scim+json`,
 * no cookie and no Origin. Returns the status and the parsed body.
 */
export async function scimCall(token: string | null, method: string, path: string, body?: unknown, contentType = "application/scim+json") {
  const { handler, id } = handlerOf(method, path);
  const headers: Record<string, string> = { accept: "application/scim+json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = contentType;
  const req = new Request(`https://idp-calls.example.test/scim/v2${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const res = await handler(req, id ? params({ id: decodeURIComponent(id) }) : undefined);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** A SCIM client bound to one token. */
export const scimClient = (token: string | null) => ({
  get: (path: string) => scimCall(token, "GET", path),
  post: (path: string, body: unknown) => scimCall(token, "POST", path, body),
  put: (path: string, body: unknown) => scimCall(token, "PUT", path, body),
  patch: (path: string, operations: unknown[]) => scimCall(token, "PATCH", path, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: operations }),
  delete: (path: string) => scimCall(token, "DELETE", path),
});

/** Makes `domain` one of the workspace's own email domains, whose people its identity provider may provision. */
export async function claimDomain(db: Db, workspaceId: string, domain = "corp.example"): Promise<void> {
  await db
    .update(workspaces)
    .set({ settings: sql`jsonb_set(${workspaces.settings}, '{sso}', ${JSON.stringify({ required: false, domains: [{ domain, role: "member" }] })}::jsonb)` })
    .where(eq(workspaces.id, workspaceId));
}
