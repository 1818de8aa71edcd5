import type { z } from "zod";
import type { RunTrigger } from "../access/access";
import type { Db } from "../db/client";
import type { ComputeKind } from "../billing/prices";
import type { Computers } from "../computers/computers";

/**
 * What a tool can do to the world. The policy gates calls by these, never by
 * tool name: a new tool is governed as soon as it declares its effects.
 */
export const toolEffects = [
  "reads_workspace",
  "writes_memory",
  "writes_workspace",
  "reads_external",
  "sends_internal",
  "sends_externally",
  "spends_money",
  "executes_code",
  "writes_computer",
] as const;
export type ToolEffect = (typeof toolEffects)[number];

/** A human-readable card of what a call will do, shown before and after it runs. */
export interface ToolPreview {
  title: string;
  /** Labelled fields, in display order (e.g. Channel: #general). */
  fields: { label: string; value: string }[];
  /** The main text the call will send or store, if any. */
  body?: string;
  /** A unified diff of what the call will change (a file write against the file's current version). */
  diff?: string;
}

export interface ToolContext {
  db: Db;
  workspaceId: string;
  agentId: string;
  agentHandle: string;
  runId: string;
  stepId: string;
  /** Agent-to-agent hops that led to this run (0 when a person started it). */
  hop: number;
  /** The person behind the run, its chat (if a chat started it) and what started it: what memory scopes are decided on. */
  userId: string | null;
  sessionId: string | null;
  trigger: RunTrigger;
  /** The untrusted sources that reached the run so far (`web:host`, …). */
  taint: readonly string[];
  /** Decrypts the workspace's credential for a provider; the model never sees it. */
  credential(provider: string, name?: string): Promise<{ secret: string; config: Record<string, string> } | null>;
  /** Private destinations the operator lets tools reach (`CLAWDECK_FETCH_ALLOW`). */
  fetchAllow: readonly string[];
  /** Agents' computers on this server; absent where commands cannot run (tests of other tools, a server without them). */
  computers?: Computers;
  /** Output of the call while it runs (a command's), shown live and kept in the run's journal. */
  progress?: (stream: "stdout" | "stderr", text: string) => void;
  signal: AbortSignal;
}

export interface ToolDefinition<I extends Record<string, unknown> = Record<string, unknown>, O = unknown> {
  name: string;
  description: string;
  input: z.ZodType<I>;
  effects: readonly ToolEffect[];
  /**
   * The untrusted sources this call's output carries (e.g. `web:example.com`,
   * or every source of the memories a recall returned), or null when the
   * output is trusted.
   */
  taint(input: I, output: O): string | readonly string[] | null;
  preview(input: I): ToolPreview;
  /**
   * The tool runs on the agent's computer: the runtime checks the budgets before it and charges the seconds it took
   * (finished, failed or cancelled) to the ledger as compute of this kind.
   */
  compute?: ComputeKind;
  /** The effects of this call, when they depend on its input (a GET reads, a POST sends); `effects` lists them all. */
  effectsOf?(input: I): readonly ToolEffect[];
  /**
   * The preview as things stand now, when it depends on them (a file write shows its diff against the file's current
   * version): used for the approval card. Falls back to `preview`.
   */
  previewNow?(ctx: { db: Db; workspaceId: string; agentId: string }, input: I): Promise<ToolPreview>;
  execute(ctx: ToolContext, input: I): Promise<O>;
  /**
   * Work the runtime does after a successful call, in the calling run's name
   * (e.g. give the recipients of a message their turn). The runtime performs
   * it by kind, never by tool name.
   */
  after?(ctx: ToolContext, input: I, output: O): FollowUp[];
  /**
   * Where a call goes (a host, a connection), so that a destination that keeps
   * failing is paused on its own; omitted when the tool has no destination.
   */
  destination?(input: I): string | null;
  /** Longest a call may run before it is abandoned (ms). */
  timeoutMs?: number;
}

/** A message to deliver: a feed item, and a turn for every recipient that is not paused. */
export interface DeliverWork {
  kind: "deliver";
  messageId: string;
  text: string;
  to?: string;
  toAgentId?: string;
  room?: string;
  roomId?: string;
  threadId?: string;
  recipients: string[];
  recipientIds: string[];
  /** Recipients that are paused: they get no turn, and the feed says so. */
  paused: { id: string; handle: string }[];
  hop: number;
}

export type FollowUp = DeliverWork;

/** A failure the model should read (bad URL, unknown handle); anything else is a tool crash. */
export class ToolError extends Error {
  /**
   * The tool declined the call by rule (a blocked address, content it does not
   * read) rather than failing to carry it out: it says nothing about the
   * destination's health, so circuit breakers do not count it.
   */
  readonly refused: boolean;

  constructor(message: string, options: { refused?: boolean } = {}) {
    super(message);
    this.name = "ToolError";
    this.refused = options.refused ?? false;
  }
}
