import { route } from "@/lib/http/route";
import { readSso, setSso } from "@/lib/auth/sso-settings";
import { ssoBodySchema, ssoStateSchema } from "@/lib/auth/sso-schemas";

const readDoc = {
  summary:
    "the workspace's single sign-on: `required` (password sign-in refused for its members; owners keep an audited break-glass password), `domains` (people whose identity provider verified an address there join at their first sign-in, with that role), the server's `providers`, and whether you have signed in through one (`linked`)",
};

export const GET = route({ apiKeys: false, doc: readDoc, can: "sso.manage", response: ssoStateSchema }, async ({ db, server, workspace, user }) =>
  readSso(db, workspace.id, user.id, server.env.oidcProviders),
);

const writeDoc = {
  summary:
    "`{required, domains: [{domain, role: \"manager\"|\"reviewer\"|\"member\"}]}`: replaces both; audited; requiring SSO gets 422 `unprocessable:sso_no_provider` when the server has no provider and 422 `unprocessable:sso_not_linked` until you have signed in through one",
};

export const PUT = route({ apiKeys: false, doc: writeDoc, can: "sso.manage", body: ssoBodySchema, response: ssoStateSchema }, async ({ db, server, workspace, user, body }) =>
  setSso(db, workspace.id, user.id, body, server.env.oidcProviders),
);
