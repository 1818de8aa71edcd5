ALTER TYPE "public"."usage_source" ADD VALUE 'compute';--> statement-breakpoint
DROP INDEX "usage_rollups_daily_covering_idx";--> statement-breakpoint
DROP INDEX "usage_rollups_hourly_covering_idx";--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "compute_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups_daily" ADD COLUMN "compute_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups_hourly" ADD COLUMN "compute_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_rollups_daily_covering_idx" ON "usage_rollups_daily" USING btree ("workspace_id","day","agent_id","model","source_kind","calls","input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","credits","unpriced_calls","compute_ms");--> statement-breakpoint
CREATE INDEX "usage_rollups_hourly_covering_idx" ON "usage_rollups_hourly" USING btree ("workspace_id","bucket","agent_id","model","source_kind","calls","input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","credits","unpriced_calls","compute_ms");