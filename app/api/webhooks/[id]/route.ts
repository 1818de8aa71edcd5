import { z } from "zod";
import { route } from "@/lib/http/route";
import { deleteWebhook } from "@/lib/webhooks/webhooks";

export const DELETE = route(
  { doc: { summary: "removes an endpoint and its delivery log; nothing more is sent to it; audited" }, can: "connections.manage", params: z.object({ id: z.uuid() }) },
  async ({ db, workspace, user, params }) => {
    await deleteWebhook(db, workspace.id, user.id, params.id);
    return { deleted: true };
  },
);
