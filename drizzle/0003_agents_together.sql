ALTER TABLE "agent_runs" ADD COLUMN "thread_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "room_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "source_message_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "input_text" text;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "hop" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "agent_runs_agent_created_idx" ON "agent_runs" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "agent_runs_thread_idx" ON "agent_runs" USING btree ("thread_id");