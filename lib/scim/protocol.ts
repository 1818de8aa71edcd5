/** The fixed parts of SCIM 2.0 (RFC 7643, RFC 7644) as Clawdeck speaks it: schema names, the error shape, lists. */
import type { AppError } from "../errors";

export const SCIM_CONTENT_TYPE = "application/scim+json";

export const schemaIds = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  list: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patch: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  serviceProviderConfig: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema",
} as const;

/** The `scimType` of RFC 7644 §3.12 each of our codes stands for. */
const scimTypes: Record<string, string> = {
  "bad_request:scim_filter": "invalidFilter",
  "bad_request:scim_value": "invalidValue",
  "bad_request:nul": "invalidValue",
  "bad_request:scim_syntax": "invalidSyntax",
  "bad_request:json": "invalidSyntax",
  "bad_request:content_type": "invalidSyntax",
  "bad_request:encoding": "invalidSyntax",
  "bad_request:scim_path": "invalidPath",
  "conflict:scim_uniqueness": "uniqueness",
};

export interface ScimErrorBody {
  schemas: [typeof schemaIds.error];
  status: string;
  scimType?: string;
  detail: string;
}

/** An error as a SCIM client reads it: the status as a string, the kind of bad request, the words. */
export function scimErrorBody(error: AppError): ScimErrorBody {
  const scimType = scimTypes[error.code];
  return { schemas: [schemaIds.error], status: String(error.status), ...(scimType ? { scimType } : {}), detail: error.message };
}

export interface Page {
  /** 1-based, as SCIM counts. */
  startIndex: number;
  count: number;
}

/** A page of resources, with the total that matched. */
export function listResponse(resources: unknown[], total: number, page: Page) {
  return { schemas: [schemaIds.list], totalResults: total, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources };
}

/** Where a resource lives, for its `meta.location`. */
export const locationOf = (baseUrl: string, kind: "Users" | "Groups", id: string) => `${baseUrl}/${kind}/${id}`;
