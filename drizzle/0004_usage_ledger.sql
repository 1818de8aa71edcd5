CREATE TYPE "public"."reconciliation_outcome" AS ENUM('filled', 'flagged');--> statement-breakpoint
CREATE TABLE "budget_alerts" (
	"workspace_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"month" timestamp with time zone NOT NULL,
	"level" text NOT NULL,
	"spent_credits" bigint NOT NULL,
	"budget_credits" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_alerts_workspace_id_scope_month_level_pk" PRIMARY KEY("workspace_id","scope","month","level")
);
--> statement-breakpoint
CREATE TABLE "model_prices" (
	"workspace_id" uuid NOT NULL,
	"model" text NOT NULL,
	"input_credits_per_mtok" bigint NOT NULL,
	"output_credits_per_mtok" bigint NOT NULL,
	"cache_read_credits_per_mtok" bigint NOT NULL,
	"cache_write_credits_per_mtok" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_prices_workspace_id_model_pk" PRIMARY KEY("workspace_id","model")
);
--> statement-breakpoint
CREATE TABLE "usage_reconciliation_cursor" (
	"id" integer PRIMARY KEY NOT NULL,
	"checked_until" timestamp with time zone NOT NULL,
	"last_run_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_reconciliations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"agent_id" uuid,
	"model" text NOT NULL,
	"outcome" "reconciliation_outcome" NOT NULL,
	"reason" text NOT NULL,
	"run_input_tokens" bigint NOT NULL,
	"run_output_tokens" bigint NOT NULL,
	"ledger_input_tokens" bigint NOT NULL,
	"ledger_output_tokens" bigint NOT NULL,
	"ledger_rows" integer NOT NULL,
	"filled_credits" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_budgets" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"monthly_budget_credits" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_rollups_hourly" DROP CONSTRAINT "usage_rollups_hourly_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "usage_rollups_hourly" ADD COLUMN "unpriced_calls" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "budget_alerts" ADD CONSTRAINT "budget_alerts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_reconciliations" ADD CONSTRAINT "usage_reconciliations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_reconciliations" ADD CONSTRAINT "usage_reconciliations_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_budgets" ADD CONSTRAINT "workspace_budgets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "usage_reconciliations_run_key" ON "usage_reconciliations" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "usage_reconciliations_workspace_created_idx" ON "usage_reconciliations" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "agent_runs_finished_idx" ON "agent_runs" USING btree ("finished_at");