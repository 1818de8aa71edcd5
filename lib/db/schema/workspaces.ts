import { bigint, index, jsonb, pgEnum, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { at, createdAt, id, updatedAt } from "./common";

export const roleEnum = pgEnum("role", ["owner", "manager", "reviewer", "member"]);
export type Role = (typeof roleEnum.enumValues)[number];

/** Workspace-level settings; later features add keys with defaults instead of columns. */
export interface WorkspaceSettings {
  /** Categories whose approvals the requester may not decide themselves. */
  fourEyesCategories?: string[];
  approvalTtlSeconds?: number;
  maxStepsPerRun?: number;
  maxHopsPerThread?: number;
  /** Per-tool and per-category overrides of the approval policy. */
  policy?: { tools?: Record<string, "ask" | "allow" | "deny">; categories?: Record<string, "ask" | "allow" | "deny"> };
  /** Bumped by every policy save; a save names the version it was made from (stale ones are refused). */
  policyVersion?: number;
  /** Who decides gated requests per category (people, the judge, or both): see `lib/safety/governor.ts`. */
  governor?: Record<string, unknown>;
  /** While the owner is the only person who may decide: they approve their own requests (see `lib/safety/solo-approval.ts`). */
  soloApproval?: { byUserId: string; at: string };
  /** Reaching reviewers: minutes a request waits before the next tier is told (see `lib/notifications/prefs.ts`). */
  notifications?: { escalateAfterMinutes?: number; slackChannel?: string | null };
  /** Days the audit log keeps an entry (default 365); older entries are removed by the sweeper. */
  auditRetentionDays?: number;
  /** Single sign-on: whether members must use it, and the email domains whose verified people may join by it. */
  sso?: { required?: boolean; domains?: { domain: string; role: Role }[] };
  /** SCIM: the role each identity-provider group (by name, lower case) gives its members. */
  scim?: { groupRoles?: Record<string, Role> };
  /** OpenTelemetry: whether spans carry message contents (off unless turned on). */
  telemetry?: { exportContents?: boolean };
}

export const workspaces = pgTable(
  "workspaces",
  {
    id: id(),
    slug: text().notNull(),
    name: text().notNull(),
    settings: jsonb().$type<WorkspaceSettings>().notNull().default({}),
    /** The IANA time zone every date and time of the workspace is shown in, and its usage days are counted in. */
    timeZone: text().notNull().default("UTC"),
    /** Last sequence number handed out to the workspace's feed journal. */
    feedSeq: bigint({ mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("workspaces_slug_key").on(t.slug)],
);

export const users = pgTable(
  "users",
  {
    id: id(),
    email: text().notNull(),
    name: text().notNull(),
    passwordHash: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  "memberships",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: roleEnum().notNull(),
    createdAt: createdAt(),
    /** When the person last opened this workspace: their default one is the most recent. */
    lastOpenedAt: at(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

export type Workspace = typeof workspaces.$inferSelect;
export type User = typeof users.$inferSelect;
export type Membership = typeof memberships.$inferSelect;
