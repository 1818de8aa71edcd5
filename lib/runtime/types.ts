import type { Database } from "../db/client";
import type { Agent, AgentRun, TaintSource } from "../db/schema";
import type { BudgetLimits } from "../billing/budgets";
import type { ModelResolver } from "../models/registry";
import type { ContentBlock, ModelMessage } from "../models/types";
import type { CircuitBreakers, PolicyGate, ProposedCall } from "../safety/dispatch";
import type { AnyTool, ToolRegistry } from "../tools/registry";
import type { EventBus } from "../db/bus";
import type { Computers } from "../computers/computers";
import type { RunJournal } from "../journal/run-journal";

export interface RuntimeDeps {
  db: Database;
  bus: EventBus;
  models: ModelResolver;
  tools: ToolRegistry;
  encryptionKey: Buffer;
  /** Names this process in run claims. */
  instanceId: string;
  /** Most model calls in one run. */
  maxSteps: number;
  maxTokens: number;
  /** Private destinations the operator lets tools reach (`CLAWDECK_FETCH_ALLOW`, parsed). */
  fetchAllow: readonly string[];
  /** Agents' computers (a sandbox and files each); absent where they are not set up. */
  computers?: Computers;
  /** How long text deltas are gathered before they are written (0: no window; the group commit merges what waits). */
  coalesceMs: number;
  heartbeatMs: number;
  breakers: CircuitBreakers;
  /**
   * Kinds of run whose decided approvals another part of the product settles (the door's: its caller uses an
   * approval), asked in order before the runtime resumes a decided run itself.
   */
  runKinds?: readonly RunKind[];
  /** An extra policy hook applied before the workspace policy; it can tighten or rewrite, never waive. */
  gate?: PolicyGate;
  /**
   * Checked before every model call; throws (e.g. `budget_exceeded`) to stop the run before it spends. `limits`:
   * the budgets read with the run a moment before its first call (otherwise they are read).
   */
  checkBudget?: (input: { workspaceId: string; agentId: string; runId: string; limits?: BudgetLimits }) => Promise<void>;
}

export type ToolResultBlock = Extract<ContentBlock, { type: "tool_result" }>;

/**
 * Everything needed to continue a run in any process: stored as the run's
 * checkpoint when it suspends, read back when it resumes (schema: `checkpoint.ts`).
 */
export interface LoopState {
  version: 2;
  system: string;
  conversation: ModelMessage[];
  fullText: string;
  position: number;
  modelCalls: number;
  taint: TaintSource[];
  /** The model's current batch of tool calls, the ones still to dispatch, and the results so far. */
  batch: ProposedCall[];
  pending: ProposedCall[];
  results: ToolResultBlock[];
}

/** Starts driving runs this process just created and claimed (agents woken by a message). */
export type StartRuns = (runIds: string[]) => void;

/** What one call of a run needs: the run, its agent, its journal writer, its loop state. */
export interface CallContext {
  deps: RuntimeDeps;
  run: AgentRun;
  agent: Agent;
  journal: RunJournal;
  allowed: AnyTool[];
  state: LoopState;
  signal: AbortSignal;
  /** Hands runs created by a tool's follow-up work to the runtime. */
  startRuns: StartRuns;
}

/** A kind of run that settles its own decided approvals, and has its own work on every sweep. */
export interface RunKind {
  /** Settles a decided run of this kind: whether it was resumed here; null when the run is not of this kind. */
  settleDecided(deps: RuntimeDeps, runId: string): Promise<boolean | null>;
  sweep?(deps: RuntimeDeps): Promise<void>;
}
