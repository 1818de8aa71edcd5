CREATE TYPE "public"."memory_scope" AS ENUM('private', 'shared');--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "scope" "memory_scope" DEFAULT 'shared' NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "owner_user_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD COLUMN "session_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD CONSTRAINT "agent_memories_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_memories" ADD CONSTRAINT "agent_memories_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;