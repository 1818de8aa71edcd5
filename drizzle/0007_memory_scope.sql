CREATE TYPE "public"."memory_scope" AS ENUM('private', 'shared');--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "scope" "memory_scope" DEFAULT 'shared' NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "owner_user_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "session_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD CONSTRAINT "agent_memories_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD CONSTRAINT "agent_memories_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Memories written before scopes existed: a private chat's memories stay with that chat's person.
UPDATE "agent_memories" m SET "owner_user_id" = r."user_id", "session_id" = r."session_id",
  "scope" = CASE WHEN r."trigger" = 'chat' OR r."session_id" IS NOT NULL THEN 'private'::"memory_scope" ELSE 'shared'::"memory_scope" END
FROM "agent_runs" r WHERE r."id" = m."run_id";
