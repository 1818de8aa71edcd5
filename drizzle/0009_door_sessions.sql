CREATE TABLE "door_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"token_id" uuid NOT NULL,
	"run_id" uuid,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "door_sessions" ADD CONSTRAINT "door_sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "door_sessions" ADD CONSTRAINT "door_sessions_token_id_door_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "public"."door_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "door_sessions" ADD CONSTRAINT "door_sessions_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "door_sessions_run_key" ON "door_sessions" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "door_sessions_open_idx" ON "door_sessions" USING btree ("last_seen_at") WHERE "door_sessions"."ended_at" is null;