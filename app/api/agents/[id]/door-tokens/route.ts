import { z } from "zod";
import { createDoorToken, doorTokenInputSchema, listDoorTokens } from "@/lib/door/tokens";
import { doorTokenCreatedSchema, doorTokenListSchema } from "@/lib/door/door-schemas";
import { created, route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });

export const GET = route(
  { doc: { summary: "an agent's door tokens (never the token nor its hash)" }, can: "agents.manage", params, response: doorTokenListSchema },
  async ({ db, workspace, params }) => ({ tokens: await listDoorTokens(db, workspace.id, params.id) }),
);

export const POST = route(
  { apiKeys: false,
    doc: { summary: "make one: 201 `{id, token}`, the `cdk_…` token appears in no other response" },
    can: "agents.manage",
    params,
    body: doorTokenInputSchema,
    response: doorTokenCreatedSchema,
  },
  async ({ db, workspace, user, params, body }) => created(await createDoorToken(db, { workspaceId: workspace.id, agentId: params.id, userId: user.id, ...body })),
);
