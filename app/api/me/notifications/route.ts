import { route } from "@/lib/http/route";
import { can } from "@/lib/access/capabilities";
import { notificationPrefsSchema } from "@/lib/notifications/notification-schemas";
import { channelsAvailableIn, notificationPrefsBodySchema, readPrefs, writePrefs } from "@/lib/notifications/prefs";

const readDoc = {
  summary:
    "how requests you may decide reach you in this workspace: channels (`email` is on by default when the server has an SMTP server), `digestMinutes` (null: one email per request), `quietHours` in `timeZone` (null: the workspace's), and only these `agents` (ids) or `categories` (null: all); `available` says which channels the server can send through",
};

export const GET = route({ apiKeys: false, doc: readDoc, response: notificationPrefsSchema }, async ({ server, db, workspace, user }) => {
  const available = await channelsAvailableIn(db, server.channels, workspace.id);
  return { ...(await readPrefs(db, workspace.id, user.id, available)), available, decides: can(workspace.role, "approvals.decide") };
});

const writeDoc = { summary: "replaces your notification choices for this workspace (every field, as GET answers them); a bad time or zone is 400 `bad_request:body`" };

export const PUT = route({ apiKeys: false, doc: writeDoc, body: notificationPrefsBodySchema, response: notificationPrefsSchema }, async ({ server, db, workspace, user, body }) => {
  await writePrefs(db, workspace.id, user.id, body);
  const available = await channelsAvailableIn(db, server.channels, workspace.id);
  return { ...(await readPrefs(db, workspace.id, user.id, available)), available, decides: can(workspace.role, "approvals.decide") };
});
