import { z } from "zod";
import { route } from "@/lib/http/route";
import { listDeliveries } from "@/lib/webhooks/webhooks";
import { webhookDeliveriesSchema } from "@/lib/webhooks/webhook-schemas";

export const GET = route(
  {
    doc: { summary: "an endpoint's latest 100 messages, newest first: the event, its status (`queued`, `sending`, `delivered`, `failed`), attempts, the receiver's last HTTP status and time, or why it was not sent" },
    can: "connections.manage",
    params: z.object({ id: z.uuid() }),
    response: webhookDeliveriesSchema,
  },
  async ({ db, workspace, params }) => ({ deliveries: await listDeliveries(db, workspace.id, params.id) }),
);
