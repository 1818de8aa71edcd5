ALTER TYPE "public"."approval_status" ADD VALUE 'withdrawn';--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "on_behalf_of_user_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "via" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "origin_session_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "origin_room_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "journal_closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "on_behalf_of_user_id" uuid;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "via" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_on_behalf_of_user_id_users_id_fk" FOREIGN KEY ("on_behalf_of_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_origin_session_id_sessions_id_fk" FOREIGN KEY ("origin_session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_on_behalf_of_user_id_users_id_fk" FOREIGN KEY ("on_behalf_of_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Runs and approvals from before: a chat run acts for the person who wrote the message.
UPDATE "agent_runs" SET "on_behalf_of_user_id" = "user_id", "origin_session_id" = "session_id" WHERE "user_id" IS NOT NULL;--> statement-breakpoint
UPDATE "approvals" SET "on_behalf_of_user_id" = "requested_by_user_id" WHERE "requested_by_user_id" IS NOT NULL;
