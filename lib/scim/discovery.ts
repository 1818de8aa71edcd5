/** What the endpoints say of themselves (RFC 7643 §5–7): what is supported, the two resource types, their attributes. */
import { schemaIds } from "./protocol";

/** The most resources one list answers with; a larger `count` is cut to it. */
export const MAX_PAGE = 200;

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [schemaIds.serviceProviderConfig],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      { type: "oauthbearertoken", name: "Bearer token", description: "The workspace's SCIM token (Settings → Directory), as Authorization: Bearer scim_…", primary: true },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string) {
  const type = (name: "User" | "Group", schema: string) => ({
    schemas: [schemaIds.resourceType],
    id: name,
    name,
    endpoint: `/${name}s`,
    schema,
    meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/${name}` },
  });
  return [type("User", schemaIds.user), type("Group", schemaIds.group)];
}

type Attribute = {
  name: string;
  type: "string" | "boolean" | "complex" | "reference";
  multiValued?: boolean;
  required?: boolean;
  mutability?: "readOnly" | "readWrite" | "immutable";
  uniqueness?: "none" | "server";
  caseExact?: boolean;
  subAttributes?: Attribute[];
  referenceTypes?: string[];
};

/** An attribute with RFC 7643's defaults spelled out, as clients expect every characteristic present. */
function attribute(a: Attribute): Record<string, unknown> {
  return {
    name: a.name,
    type: a.type,
    multiValued: a.multiValued ?? false,
    description: "",
    required: a.required ?? false,
    caseExact: a.caseExact ?? false,
    mutability: a.mutability ?? "readWrite",
    returned: "default",
    uniqueness: a.uniqueness ?? "none",
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attribute) } : {}),
    ...(a.referenceTypes ? { referenceTypes: a.referenceTypes } : {}),
  };
}

const text = (name: string, extra: Partial<Attribute> = {}): Attribute => ({ name, type: "string", ...extra });

export function schemas(baseUrl: string) {
  const schema = (id: string, name: string, attributes: Attribute[]) => ({
    schemas: [schemaIds.schema],
    id,
    name,
    description: `${name} account`,
    attributes: attributes.map(attribute),
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${id}` },
  });
  return [
    schema(schemaIds.user, "User", [
      text("userName", { required: true, uniqueness: "server" }),
      text("externalId", { caseExact: true }),
      text("displayName"),
      { name: "name", type: "complex", subAttributes: [text("formatted"), text("givenName"), text("familyName")] },
      { name: "emails", type: "complex", multiValued: true, subAttributes: [text("value"), text("type"), { name: "primary", type: "boolean" }] },
      { name: "active", type: "boolean" },
      {
        name: "groups",
        type: "complex",
        multiValued: true,
        mutability: "readOnly",
        subAttributes: [text("value", { mutability: "readOnly" }), text("display", { mutability: "readOnly" }), { name: "$ref", type: "reference", mutability: "readOnly", referenceTypes: ["Group"] }],
      },
    ]),
    schema(schemaIds.group, "Group", [
      text("displayName", { required: true, uniqueness: "server" }),
      text("externalId", { caseExact: true }),
      {
        name: "members",
        type: "complex",
        multiValued: true,
        subAttributes: [text("value", { mutability: "immutable" }), text("display", { mutability: "readOnly" }), { name: "$ref", type: "reference", mutability: "immutable", referenceTypes: ["User"] }],
      },
    ]),
  ];
}
