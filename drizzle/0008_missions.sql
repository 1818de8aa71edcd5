CREATE TYPE "public"."mission_node_state" AS ENUM('waiting', 'running', 'succeeded', 'failed', 'cancelled', 'skipped');--> statement-breakpoint
CREATE TABLE "mission_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"mission_run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mission_nodes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"mission_run_id" uuid NOT NULL,
	"node_id" text NOT NULL,
	"round" integer DEFAULT 0 NOT NULL,
	"agent_id" uuid,
	"state" "mission_node_state" DEFAULT 'waiting' NOT NULL,
	"held" boolean DEFAULT false NOT NULL,
	"run_id" uuid,
	"output" text,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "missions" ALTER COLUMN "goal" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "mission_run_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "mission_node_id" text;--> statement-breakpoint
ALTER TABLE "mission_runs" ADD COLUMN "goal" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "mission_runs" ADD COLUMN "topology" jsonb;--> statement-breakpoint
ALTER TABLE "mission_runs" ADD COLUMN "failed_node_id" text;--> statement-breakpoint
ALTER TABLE "mission_runs" ADD COLUMN "last_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mission_events" ADD CONSTRAINT "mission_events_mission_run_id_mission_runs_id_fk" FOREIGN KEY ("mission_run_id") REFERENCES "public"."mission_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mission_nodes" ADD CONSTRAINT "mission_nodes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mission_nodes" ADD CONSTRAINT "mission_nodes_mission_run_id_mission_runs_id_fk" FOREIGN KEY ("mission_run_id") REFERENCES "public"."mission_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mission_nodes" ADD CONSTRAINT "mission_nodes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mission_nodes" ADD CONSTRAINT "mission_nodes_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mission_events_seq_key" ON "mission_events" USING btree ("mission_run_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "mission_nodes_turn_key" ON "mission_nodes" USING btree ("mission_run_id","node_id","round");--> statement-breakpoint
CREATE INDEX "mission_nodes_run_idx" ON "mission_nodes" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "agent_runs_mission_idx" ON "agent_runs" USING btree ("mission_run_id");--> statement-breakpoint
CREATE INDEX "mission_runs_workspace_idx" ON "mission_runs" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "mission_runs_state_idx" ON "mission_runs" USING btree ("state");