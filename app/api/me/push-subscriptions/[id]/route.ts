import { z } from "zod";
import { userRoute } from "@/lib/http/route";
import { deletePushSubscription } from "@/lib/notifications/push";

export const DELETE = userRoute(
  { doc: { summary: "stops push notifications to one of your browsers (404 `not_found:push_subscription` when it is not yours)" }, params: z.object({ id: z.uuid() }) },
  async ({ db, user, params }) => {
    await deletePushSubscription(db, user.id, params.id);
    return { deleted: true };
  },
);
