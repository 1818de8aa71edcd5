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
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_on_behalf_of_user_id_users_id_fk" FOREIGN KEY ("on_behalf_of_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;