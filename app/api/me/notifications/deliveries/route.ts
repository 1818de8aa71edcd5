import { route } from "@/lib/http/route";
import { deliveriesSchema } from "@/lib/notifications/notification-schemas";
import { deliveriesOf } from "@/lib/notifications/outbox";

const doc = { summary: "your latest 50 notifications in this workspace, newest first: the request, channel, why it was sent, and `status` (`sent`, `queued` with the last `error` while it is tried again, `failed` with the channel's error, `dropped` when decided before it went)" };

export const GET = route({ apiKeys: false, doc, response: deliveriesSchema }, async ({ db, workspace, user }) => ({ deliveries: await deliveriesOf(db, workspace.id, user.id) }));
