DROP INDEX "agent_runs_one_active_per_chat";--> statement-breakpoint
UPDATE "agent_runs" SET "state" = 'failed', "error_code" = 'internal:lease_expired', "error" = 'The run was never started.', "finished_at" = now() WHERE "state" = 'queued';--> statement-breakpoint
ALTER TABLE "agent_runs" ALTER COLUMN "state" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "agent_runs" ALTER COLUMN "state" SET DEFAULT 'running'::text;--> statement-breakpoint
DROP TYPE "public"."run_state";--> statement-breakpoint
CREATE TYPE "public"."run_state" AS ENUM('running', 'suspended', 'succeeded', 'failed', 'cancelled');--> statement-breakpoint
ALTER TABLE "agent_runs" ALTER COLUMN "state" SET DEFAULT 'running'::"public"."run_state";--> statement-breakpoint
ALTER TABLE "agent_runs" ALTER COLUMN "state" SET DATA TYPE "public"."run_state" USING "state"::"public"."run_state";--> statement-breakpoint
CREATE UNIQUE INDEX "agent_runs_one_active_per_chat" ON "agent_runs" USING btree ("session_id") WHERE "agent_runs"."state" in ('running', 'suspended');
