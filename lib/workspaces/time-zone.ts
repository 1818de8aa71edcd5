import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { workspaces } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";

/** The zone a workspace starts with when its creator's browser names none (or one this server does not know). */
export const DEFAULT_TIME_ZONE = "UTC";

let known: Set<string> | undefined;

/** Every IANA zone this runtime knows, plus `UTC` (which `Intl.supportedValuesOf` lists only as `Etc/UTC` on some builds). */
export function knownTimeZones(): Set<string> {
  known ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
  return known;
}

export const isKnownTimeZone = (zone: string) => knownTimeZones().has(zone);

/** A zone name as sent: a short string. Whether the zone exists is checked by `setWorkspaceTimeZone` (422, not 400). */
export const timeZoneBodySchema = z.object({ timeZone: z.string().trim().min(1, "Choose a time zone").max(64) });

export const knownTimeZoneSchema = z.string().refine(isKnownTimeZone, "Unknown time zone");

export async function getWorkspaceTimeZone(db: Db, workspaceId: string): Promise<string> {
  const [row] = await db.select({ timeZone: workspaces.timeZone }).from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  return row?.timeZone ?? DEFAULT_TIME_ZONE;
}

/** Sets the zone the workspace's dates are shown and its usage days counted in; an unknown zone is refused with `unprocessable:time_zone`. */
export async function setWorkspaceTimeZone(db: Db, workspaceId: string, actorId: string, timeZone: string): Promise<string> {
  if (!knownTimeZoneSchema.safeParse(timeZone).success) {
    throw new AppError("unprocessable:time_zone", `"${timeZone.slice(0, 64)}" is not a time zone this server knows. Pick one from the list, such as Europe/Berlin.`, {
      details: [{ path: "timeZone", message: "Unknown time zone" }],
    });
  }
  return db.transaction(async (tx) => {
    const [before] = await tx.select({ timeZone: workspaces.timeZone }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (before?.timeZone === timeZone) return timeZone;
    await tx.update(workspaces).set({ timeZone, updatedAt: new Date() }).where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actorId },
      action: "workspace.time_zone_changed",
      target: { type: "workspace", id: workspaceId },
      detail: { from: before?.timeZone ?? null, to: timeZone },
    });
    return timeZone;
  });
}
