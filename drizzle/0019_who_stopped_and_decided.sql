ALTER TABLE "agent_runs" ADD COLUMN "cancel_reason" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "decided_via" text;