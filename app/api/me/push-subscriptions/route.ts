import { created, userRoute } from "@/lib/http/route";
import { listPushSubscriptions, pushSubscriptionBodySchema, savePushSubscription } from "@/lib/notifications/push";
import { pushBrowserSchema, pushBrowsersSchema } from "@/lib/notifications/notification-schemas";
import { AppError } from "@/lib/errors";

export const GET = userRoute(
  { doc: { summary: "your browsers that show push notifications, and the server's VAPID public key to subscribe another" }, response: pushBrowsersSchema },
  async ({ server, db, user }) => {
    const push = server.channels.push;
    if (!push) throw new AppError("unavailable:response", "Push notifications are not set up on this server.");
    const browsers = await listPushSubscriptions(db, user.id);
    return { publicKey: await push.publicKey(), browsers: browsers.map((b) => ({ ...b, createdAt: b.createdAt.toISOString(), lastSentAt: b.lastSentAt?.toISOString() ?? null })) };
  },
);

const saveDoc = {
  summary: "the browser's `PushSubscription` JSON (`endpoint`, `keys.p256dh`, `keys.auth`) and an optional `label`; 201 with the browser; the same endpoint again replaces its keys",
};

export const POST = userRoute({ doc: saveDoc, body: pushSubscriptionBodySchema, response: pushBrowserSchema }, async ({ db, user, body }) => {
  const browser = await savePushSubscription(db, user.id, body);
  return created({ browser: { ...browser, createdAt: browser.createdAt.toISOString(), lastSentAt: browser.lastSentAt?.toISOString() ?? null } });
});
