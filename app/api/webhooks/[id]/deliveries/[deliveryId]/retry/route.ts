import { z } from "zod";
import { route } from "@/lib/http/route";
import { redeliver } from "@/lib/webhooks/webhooks";

export const POST = route(
  {
    doc: { summary: "sends a message again (same `webhook-id`, so a receiver can tell it is the same event), on the next sweep; audited" },
    can: "connections.manage",
    params: z.object({ id: z.uuid(), deliveryId: z.uuid() }),
  },
  async ({ db, workspace, user, params }) => ({ delivery: await redeliver(db, { workspaceId: workspace.id, actorId: user.id, webhookId: params.id, deliveryId: params.deliveryId }) }),
);
