import { eq } from "drizzle-orm";
import { route } from "@/lib/http/route";
import { workspaces } from "@/lib/db/schema";
import { escalationSchema } from "@/lib/notifications/notification-schemas";
import { escalationBodySchema, setEscalation } from "@/lib/notifications/prefs";
import { escalateAfterMinutes } from "@/lib/escalation";

const readDoc = { summary: "minutes a request waits for the reviewers before the managers are told, and as long again before the owners are (0: every tier at once)" };

export const GET = route({ doc: readDoc, response: escalationSchema }, async ({ db, workspace }) => {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspace.id));
  return { escalateAfterMinutes: escalateAfterMinutes(ws?.settings) };
});

const writeDoc = { summary: "`{escalateAfterMinutes}` from 0 to 10080; managers and owners; audited" };

export const PUT = route({ doc: writeDoc, can: "policy.manage", body: escalationBodySchema, response: escalationSchema }, async ({ db, workspace, user, body }) =>
  setEscalation(db, workspace.id, user.id, body.escalateAfterMinutes),
);
