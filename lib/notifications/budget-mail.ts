/**
 * Managers and owners are emailed when a monthly budget reaches half, 80 % and all of itself, once per budget, level
 * and month: the alert row (raised once by whichever process sees it first) is claimed for sending once, and what
 * went wrong sending it is kept on it in words.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, budgetAlerts, memberships, notificationPrefs, users, workspaces, type BudgetAlertLevel } from "../db/schema";
import { CREDITS_PER_USD } from "../billing/prices";
import { mailFailure, type Mail } from "../mail/mailer";
import { logError } from "../log";
import { channelsAvailable, resolvePrefs, type NotificationChannels } from "./prefs";

const usd = (credits: number) => `$${(credits / CREDITS_PER_USD).toFixed(2)}`;

export function budgetMail(input: {
  to: string;
  level: BudgetAlertLevel;
  handle: string | null;
  spentCredits: number;
  budgetCredits: number;
  month: Date;
  workspaceName: string;
  url: string;
}): Mail {
  const who = input.handle ? `@${input.handle}` : input.workspaceName;
  const whose = input.handle ? `@${input.handle}'s` : `${input.workspaceName}'s`;
  const monthName = input.month.toLocaleString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
  const percent = input.budgetCredits > 0 ? Math.floor((input.spentCredits * 100) / input.budgetCredits) : 100;
  const stop = input.handle ? "its runs stop before their next model call" : "every agent's runs stop before their next model call";
  const headline =
    input.level === "exceeded"
      ? `${who} has used all of its monthly budget for ${monthName}`
      : `${who} has used ${input.level === "half" ? "half" : "80 %"} of its monthly budget for ${monthName}`;
  return {
    to: input.to,
    subject: `${headline} (${input.workspaceName})`,
    text: [
      `${headline}: ${usd(input.spentCredits)} of ${usd(input.budgetCredits)} (${percent} %).`,
      "",
      input.level === "exceeded"
        ? `Until a manager raises the budget or the month ends, ${stop}.`
        : `At the whole of ${whose} budget, ${stop}.`,
      "",
      "Budgets are set in Settings → Billing:",
      input.url,
      "",
      "You get this because you are a manager or an owner of the workspace. Choose what reaches you in Settings → Notifications.",
    ].join("\n"),
  };
}

/** Emails the alerts not yet sent to the managers and owners who take email. Returns how many alerts were sent. */
export async function deliverBudgetAlerts(db: Db, channels: NotificationChannels, baseUrl: string, now = new Date()): Promise<number> {
  if (!channels.email) return 0;
  const claimed = await db.transaction(async (tx) => {
    const due = await tx
      .select({ workspaceId: budgetAlerts.workspaceId, scope: budgetAlerts.scope, month: budgetAlerts.month, level: budgetAlerts.level })
      .from(budgetAlerts)
      .where(isNull(budgetAlerts.notifiedAt))
      .limit(50)
      .for("update", { skipLocked: true });
    const rows = [];
    for (const key of due) {
      const [row] = await tx
        .update(budgetAlerts)
        .set({ notifiedAt: now })
        .where(and(eq(budgetAlerts.workspaceId, key.workspaceId), eq(budgetAlerts.scope, key.scope), eq(budgetAlerts.month, key.month), eq(budgetAlerts.level, key.level)))
        .returning();
      if (row) rows.push(row);
    }
    return rows;
  });
  let sent = 0;
  for (const alert of claimed) {
    const agentId = alert.scope.startsWith("agent:") ? alert.scope.slice("agent:".length) : null;
    const [ws] = await db.select({ name: workspaces.name, slug: workspaces.slug }).from(workspaces).where(eq(workspaces.id, alert.workspaceId));
    const [agent] = agentId ? await db.select({ handle: agents.handle }).from(agents).where(eq(agents.id, agentId)) : [];
    const people = await db
      .select({ email: users.email, prefs: notificationPrefs.prefs })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .leftJoin(notificationPrefs, and(eq(notificationPrefs.workspaceId, memberships.workspaceId), eq(notificationPrefs.userId, memberships.userId)))
      .where(and(eq(memberships.workspaceId, alert.workspaceId), inArray(memberships.role, ["manager", "owner"])));
    const errors: string[] = [];
    for (const person of people) {
      if (!resolvePrefs(person.prefs ?? undefined, channelsAvailable(channels)).email) continue;
      try {
        await channels.email.send(
          budgetMail({
            to: person.email,
            level: alert.level,
            handle: agent?.handle ?? null,
            spentCredits: alert.spentCredits,
            budgetCredits: alert.budgetCredits,
            month: alert.month,
            workspaceName: ws?.name ?? "The workspace",
            url: `${baseUrl.replace(/\/$/, "")}/w/${ws?.slug ?? ""}/settings/billing`,
          }),
        );
      } catch (error) {
        logError("A budget alert could not be emailed", error);
        errors.push(mailFailure(error));
      }
    }
    if (errors.length > 0) {
      await db
        .update(budgetAlerts)
        .set({ notifyError: [...new Set(errors)].join(" ") })
        .where(and(eq(budgetAlerts.workspaceId, alert.workspaceId), eq(budgetAlerts.scope, alert.scope), eq(budgetAlerts.month, alert.month), eq(budgetAlerts.level, alert.level)));
    }
    sent += 1;
  }
  return sent;
}
