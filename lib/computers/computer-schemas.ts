/** What the computer API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";

export const computerStatusSchema = z.object({
  /** "off" when commands cannot run on this server; `reason` says why. */
  engine: z.enum(["bubblewrap", "off"]),
  reason: z.nullable(z.string()),
  running: z.array(z.object({ runId: id, stepId: z.string(), command: z.string(), startedAt: isoDate })),
  /** What the agent's browser showed last (in a run the viewer may read), or null. */
  browser: z.nullable(
    z.object({ url: z.string(), title: z.string(), screenshotPath: z.string(), screenshotVersion: z.nullable(z.number()), at: isoDate }),
  ),
});
export type ComputerStatus = z.infer<typeof computerStatusSchema>;

export const fileEntriesSchema = z.object({
  path: z.string(),
  entries: z.array(z.object({ path: z.string(), kind: z.enum(["file", "folder"]), size: z.number(), version: z.nullable(z.number()), updatedAt: isoDate })),
});
export const fileHistorySchema = z.object({
  path: z.string(),
  versions: z.array(
    z.object({ version: z.number(), size: z.number(), deleted: z.boolean(), runId: z.nullable(id), stepId: z.nullable(z.string()), restoredBy: z.nullable(id), at: isoDate }),
  ),
});
export const restoredSchema = z.object({ path: z.string(), version: z.number(), restoredFrom: z.number() });

export const recentCommandsSchema = z.object({
  commands: z.array(
    z.object({
      stepId: id,
      runId: id,
      command: z.string(),
      cwd: z.string(),
      status: z.string(),
      error: z.nullable(z.string()),
      exitCode: z.nullable(z.number()),
      stoppedBy: z.nullable(z.string()),
      signal: z.nullable(z.string()),
      durationMs: z.nullable(z.number()),
      output: z.string(),
      at: isoDate,
    }),
  ),
});
export type RecentCommand = z.infer<typeof recentCommandsSchema>["commands"][number];
