ALTER TABLE "agents" ADD COLUMN "run_cap_credits" bigint;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "cap_raised_credits" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mission_runs" ADD COLUMN "cap_credits" bigint;--> statement-breakpoint
ALTER TABLE "mission_runs" ADD COLUMN "cap_raised_credits" bigint DEFAULT 0 NOT NULL;