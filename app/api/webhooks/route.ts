import { created, route } from "@/lib/http/route";
import { fetchAllowList } from "@/lib/net/safe-fetch";
import { createWebhook, listWebhooks, webhookBodySchema } from "@/lib/webhooks/webhooks";
import { webhookCreatedSchema, webhookListSchema } from "@/lib/webhooks/webhook-schemas";

export const GET = route(
  { doc: { summary: "the workspace's webhook endpoints (never their secrets), with how many messages were delivered, failed or wait" }, can: "connections.manage", response: webhookListSchema },
  async ({ db, workspace }) => ({ webhooks: await listWebhooks(db, workspace.id) }),
);

const createDoc = {
  summary:
    "`{url, events, description?}`: 201 with the endpoint and its signing `secret` (`whsec_…`, shown once); messages are signed with the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`); an address inside the server's network (unless `CLAWDECK_FETCH_ALLOW` names it) gets 422 `unprocessable:webhook_url`; audited",
};

export const POST = route({ apiKeys: false, doc: createDoc, can: "connections.manage", body: webhookBodySchema, response: webhookCreatedSchema }, async ({ server, db, workspace, user, body }) =>
  created(
    await createWebhook(db, {
      workspaceId: workspace.id,
      actorId: user.id,
      encryptionKey: server.secrets.encryptionKey,
      fetchAllow: fetchAllowList(server.env.CLAWDECK_FETCH_ALLOW),
      ...body,
    }),
  ),
);
