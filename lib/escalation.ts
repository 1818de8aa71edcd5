/** When a waiting request is passed on to the next tier of people (see lib/notifications/outbox.ts). */
import type { WorkspaceSettings } from "./db/schema";

/** Minutes a request waits before the next tier (managers, then owners) is told; 0 tells every tier at once. */
export const DEFAULT_ESCALATE_AFTER_MINUTES = 15;

export function escalateAfterMinutes(settings: Pick<WorkspaceSettings, "notifications"> | undefined): number {
  return settings?.notifications?.escalateAfterMinutes ?? DEFAULT_ESCALATE_AFTER_MINUTES;
}
