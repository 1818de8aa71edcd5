/** When a waiting request is passed on to the next tier of people (see lib/notifications/outbox.ts). */
import type { WorkspaceSettings } from "./db/schema";

/** Minutes a request waits before the next tier (managers, then owners) is told; 0 tells every tier at once. */
export const DEFAULT_ESCALATE_AFTER_MINUTES = 15;

export function escalateAfterMinutes(settings: Pick<WorkspaceSettings, "notifications"> | undefined): number {
  return settings?.notifications?.escalateAfterMinutes ?? DEFAULT_ESCALATE_AFTER_MINUTES;
}

/** The Slack channel every waiting request is also posted to, for all to see (null: none, only direct messages). */
export function requestsSlackChannel(settings: Pick<WorkspaceSettings, "notifications"> | undefined): string | null {
  return settings?.notifications?.slackChannel ?? null;
}
