import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { workspaces } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";

export const telemetryBodySchema = z.object({ exportContents: z.boolean() });

/** Whether the workspace's spans carry message contents (prompts, replies, tool inputs and outputs): off unless turned on. */
export async function getExportContents(db: Db, workspaceId: string): Promise<boolean> {
  const [row] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return row?.settings.telemetry?.exportContents === true;
}

/** Turns message contents in the workspace's spans on or off, audited with the value before and after. */
export async function setExportContents(db: Db, workspaceId: string, actorId: string, exportContents: boolean): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (!ws) throw new AppError("not_found:workspace");
    const before = ws.settings.telemetry?.exportContents === true;
    if (before === exportContents) return exportContents;
    await tx
      .update(workspaces)
      .set({ settings: { ...ws.settings, telemetry: { ...ws.settings.telemetry, exportContents } }, updatedAt: new Date() })
      .where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actorId },
      action: "workspace.telemetry_contents_changed",
      target: { type: "workspace", id: workspaceId },
      detail: { from: before, to: exportContents },
    });
    return exportContents;
  });
}
