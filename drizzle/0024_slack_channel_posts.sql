DROP INDEX "notifications_once_key";--> statement-breakpoint
ALTER TABLE "notifications" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "destination" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_once_key" UNIQUE NULLS NOT DISTINCT("approval_id","user_id","channel","step");