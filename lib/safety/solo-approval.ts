/**
 * A team of one. Four eyes keeps the person an agent acts for from approving its gated calls, which leaves a
 * workspace whose only reviewer is its owner unable to approve anything the owner asks for. The owner may then let
 * themself approve their own requests, audited and shown on every such card, until a second person who may decide
 * joins: the moment someone else can decide, the exception ends (and it is switched off, so it does not come back if
 * that person leaves). Requests through a door token are never covered: the token's maker never approves them.
 */
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { memberships, users, workspaces, type Role, type WorkspaceSettings } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { can } from "../access/capabilities";

/** The roles that decide gated calls. */
const DECIDERS: Role[] = ["owner", "manager", "reviewer"];

export const soloApprovalBodySchema = z.strictObject({ on: z.boolean() });

export interface SoloApprovalState {
  /** At most one person of the workspace may decide gated calls. */
  alone: boolean;
  /** Whether the owner approves their own requests now (on, and still alone). */
  on: boolean;
  /** Who turned it on, and when; null while off. */
  byName: string | null;
  at: string | null;
}

/** How many people of the workspace other than `userId` may decide gated calls. */
async function otherDeciders(db: Db, workspaceId: string, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), inArray(memberships.role, DECIDERS), ne(memberships.userId, userId)));
  return row?.n ?? 0;
}

async function countDeciders(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), inArray(memberships.role, DECIDERS)));
  return row?.n ?? 0;
}

export async function readSoloApproval(db: Db, workspaceId: string): Promise<SoloApprovalState> {
  const [row] = await db
    .select({ solo: sql<WorkspaceSettings["soloApproval"] | null>`${workspaces.settings}->'soloApproval'` })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId));
  const alone = (await countDeciders(db, workspaceId)) <= 1;
  const solo = row?.solo ?? null;
  if (!solo || !alone) return { alone, on: false, byName: null, at: null };
  const [by] = await db.select({ name: users.name }).from(users).where(eq(users.id, solo.byUserId));
  return { alone, on: true, byName: by?.name ?? null, at: solo.at };
}

/**
 * Turns the exception on or off (owners only, audited). On is refused once someone else may decide: there is a
 * second pair of eyes to ask.
 */
export async function setSoloApproval(db: Db, workspaceId: string, actor: { userId: string; role: Role }, on: boolean): Promise<SoloApprovalState> {
  if (!can(actor.role, "approvals.ownWhileAlone")) {
    throw new AppError("forbidden:role", "Only an owner can let themself approve their own requests.");
  }
  await db.transaction(async (tx) => {
    // The workspace row is locked, so a person joining meanwhile (who ends the exception) is ordered with this.
    const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("update");
    if (!ws) throw new AppError("not_found:workspace");
    const wasOn = !!ws.settings.soloApproval;
    if (on === wasOn) return;
    if (on && (await otherDeciders(tx, workspaceId, actor.userId)) > 0) {
      throw new AppError("conflict:not_alone", "Someone else here can already approve your requests: ask them instead.");
    }
    const { soloApproval: _, ...rest } = ws.settings;
    const settings: WorkspaceSettings = on ? { ...rest, soloApproval: { byUserId: actor.userId, at: new Date().toISOString() } } : rest;
    await tx.update(workspaces).set({ settings, updatedAt: new Date() }).where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actor.userId },
      action: on ? "approvals.own_allowed" : "approvals.own_ended",
      target: { type: "workspace", id: workspaceId },
      detail: { reason: on ? "the only person who may decide" : "turned off" },
    });
  });
  return readSoloApproval(db, workspaceId);
}

/**
 * Called in the transaction that gives someone a role that decides (joining, or a new role): the exception ends, and
 * the audit log says why.
 */
export async function endSoloApproval(tx: Db, workspaceId: string, joinedUserId: string): Promise<void> {
  const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("update");
  if (!ws?.settings.soloApproval) return;
  const { soloApproval: _, ...rest } = ws.settings;
  await tx.update(workspaces).set({ settings: rest, updatedAt: new Date() }).where(eq(workspaces.id, workspaceId));
  await recordAudit(tx, {
    workspaceId,
    actor: { kind: "system" },
    action: "approvals.own_ended",
    target: { type: "workspace", id: workspaceId },
    detail: { reason: "a second person who may decide joined", userId: joinedUserId },
  });
}

/**
 * Whether this approval of one's own request is the exception: on, by an owner, for a request not through a door
 * token, while nobody else may decide.
 */
export async function ownApprovalAllowed(
  tx: Db,
  settings: WorkspaceSettings,
  workspaceId: string,
  decider: { userId: string; role: Role },
  request: { behalf: string | null; throughDoor: boolean },
): Promise<boolean> {
  if (!settings.soloApproval || request.throughDoor || request.behalf !== decider.userId) return false;
  if (!can(decider.role, "approvals.ownWhileAlone")) return false;
  return (await otherDeciders(tx, workspaceId, decider.userId)) === 0;
}

export function isDecidingRole(role: Role): boolean {
  return DECIDERS.includes(role);
}
