import { route } from "@/lib/http/route";
import { removeSlackLink, slackLinkBodySchema, slackLinkState, startSlackLink } from "@/lib/notifications/slack-interactions";
import { slackLinkSchema } from "@/lib/notifications/notification-schemas";

const reply = (state: Awaited<ReturnType<typeof slackLinkState>>) => ({ link: "since" in state ? { ...state, since: state.since.toISOString() } : state });

export const GET = route({ apiKeys: false, doc: { summary: "whether your Slack account is linked in this workspace (`none`, `pending` until you confirm it in Slack, `linked`)" }, response: slackLinkSchema }, async ({ db, workspace, user }) =>
  reply(await slackLinkState(db, workspace.id, user.id)),
);

const startDoc = {
  summary:
    "starts linking your Slack account: by `slackUserId` (U…), else the member with your email address; the Slack app messages you a button that confirms it; 422 `unprocessable:slack_link` without a connected Slack app or when Slack cannot find or message you",
};

export const POST = route({ apiKeys: false, doc: startDoc, body: slackLinkBodySchema, response: slackLinkSchema }, async ({ server, db, workspace, user, body }) => {
  return reply(await startSlackLink({ db, encryptionKey: server.secrets.encryptionKey, channels: server.channels }, { workspaceId: workspace.id, userId: user.id, slackUserId: body.slackUserId }));
});

export const DELETE = route({ apiKeys: false, doc: { summary: "unlinks your Slack account in this workspace" }, response: slackLinkSchema }, async ({ db, workspace, user }) => {
  await removeSlackLink(db, workspace.id, user.id);
  return reply({ status: "none" });
});
