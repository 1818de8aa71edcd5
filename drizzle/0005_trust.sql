CREATE TYPE "public"."memory_scope" AS ENUM('private', 'shared');--> statement-breakpoint
ALTER TYPE "public"."approval_status" ADD VALUE 'withdrawn';--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer NOT NULL,
	"expire" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "auth_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" "role" NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" uuid,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" uuid,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "last_opened_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "on_behalf_of_user_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "via" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "origin_session_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "origin_room_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "journal_closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "on_behalf_of_user_id" uuid;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "via" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "four_eyes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "scope" "memory_scope" DEFAULT 'shared' NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "owner_user_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "session_id" uuid;--> statement-breakpoint
ALTER TABLE "auth_sessions" ADD CONSTRAINT "auth_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_accepted_by_users_id_fk" FOREIGN KEY ("accepted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_sessions_user_idx" ON "auth_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invitations_workspace_idx" ON "invitations" USING btree ("workspace_id");--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_on_behalf_of_user_id_users_id_fk" FOREIGN KEY ("on_behalf_of_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_origin_session_id_sessions_id_fk" FOREIGN KEY ("origin_session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_on_behalf_of_user_id_users_id_fk" FOREIGN KEY ("on_behalf_of_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD CONSTRAINT "agent_memories_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD CONSTRAINT "agent_memories_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Runs and approvals from before: a chat run acts for the person who wrote the message.
UPDATE "agent_runs" SET "on_behalf_of_user_id" = "user_id", "origin_session_id" = "session_id" WHERE "user_id" IS NOT NULL;--> statement-breakpoint
UPDATE "approvals" SET "on_behalf_of_user_id" = "requested_by_user_id" WHERE "requested_by_user_id" IS NOT NULL;--> statement-breakpoint
-- "four_eyes" stays false on approvals from before: their decision is judged on the policy of the day, as it was.
-- Memories written before scopes existed: a private chat's memories stay with that chat's person.
UPDATE "agent_memories" m SET "owner_user_id" = r."user_id", "session_id" = r."session_id",
  "scope" = CASE WHEN r."trigger" = 'chat' OR r."session_id" IS NOT NULL THEN 'private'::"memory_scope" ELSE 'shared'::"memory_scope" END
FROM "agent_runs" r WHERE r."id" = m."run_id";
