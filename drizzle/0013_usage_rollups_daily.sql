CREATE TABLE "usage_rollups_daily" (
	"workspace_id" uuid NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"agent_id" uuid,
	"model" text NOT NULL,
	"source_kind" "usage_source" NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_read_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_write_tokens" bigint DEFAULT 0 NOT NULL,
	"credits" bigint DEFAULT 0 NOT NULL,
	"unpriced_calls" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_rollups_daily_key" UNIQUE NULLS NOT DISTINCT("workspace_id","day","agent_id","model","source_kind")
);
--> statement-breakpoint
DROP INDEX "usage_rollups_hourly_workspace_bucket_idx";--> statement-breakpoint
ALTER TABLE "usage_rollups_daily" ADD CONSTRAINT "usage_rollups_daily_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_rollups_daily_covering_idx" ON "usage_rollups_daily" USING btree ("workspace_id","day","agent_id","model","source_kind","calls","input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","credits","unpriced_calls");--> statement-breakpoint
CREATE INDEX "usage_rollups_hourly_covering_idx" ON "usage_rollups_hourly" USING btree ("workspace_id","bucket","agent_id","model","source_kind","calls","input_tokens","output_tokens","cache_read_tokens","cache_write_tokens","credits","unpriced_calls");--> statement-breakpoint
-- The days already in the hourly rollups: from here on each charge adds to both in one transaction.
INSERT INTO "usage_rollups_daily" ("workspace_id", "day", "agent_id", "model", "source_kind", "calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "credits", "unpriced_calls")
SELECT "workspace_id", date_trunc('day', "bucket", 'UTC'), "agent_id", "model", "source_kind", sum("calls"), sum("input_tokens"), sum("output_tokens"), sum("cache_read_tokens"), sum("cache_write_tokens"), sum("credits"), sum("unpriced_calls")
FROM "usage_rollups_hourly"
GROUP BY 1, 2, 3, 4, 5;
