import { eq } from "drizzle-orm";
import { route } from "@/lib/http/route";
import { workspaces } from "@/lib/db/schema";
import { escalationSchema } from "@/lib/notifications/notification-schemas";
import { escalationBodySchema, setEscalation } from "@/lib/notifications/prefs";
import { escalateAfterMinutes, requestsSlackChannel } from "@/lib/escalation";

const readDoc = {
  summary:
    "minutes a request waits for the reviewers before the managers are told, and as long again before the owners are (0: every tier at once); `slackChannel`: the Slack channel every request is also posted to, with an Open button only (null: none)",
};

export const GET = route({ doc: readDoc, response: escalationSchema }, async ({ db, workspace }) => {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspace.id));
  return { escalateAfterMinutes: escalateAfterMinutes(ws?.settings), slackChannel: requestsSlackChannel(ws?.settings) };
});

const writeDoc = { summary: "`{escalateAfterMinutes, slackChannel?}`: minutes from 0 to 10080, a channel such as `#approvals` or null (left out: unchanged); managers and owners; audited" };

export const PUT = route({ apiKeys: false, doc: writeDoc, can: "policy.manage", body: escalationBodySchema, response: escalationSchema }, async ({ db, workspace, user, body }) =>
  setEscalation(db, workspace.id, user.id, body),
);
