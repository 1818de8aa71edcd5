ALTER TABLE "budget_alerts" ADD COLUMN "notified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "budget_alerts" ADD COLUMN "notify_error" text;--> statement-breakpoint
-- Alerts raised before managers were emailed count as told: nobody gets a month of old alerts at once.
UPDATE "budget_alerts" SET "notified_at" = "created_at";