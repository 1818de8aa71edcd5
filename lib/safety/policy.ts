import { z } from "zod";
import type { TaintSource, WorkspaceSettings } from "../db/schema";
import type { ToolEffect } from "../tools/types";
import { taintNoun } from "./taint";

export const approvalCategories = ["external_send", "data_write", "code_exec", "spend", "tainted_egress"] as const;
export type ApprovalCategory = (typeof approvalCategories)[number];

export const categoryLabels: Record<ApprovalCategory, string> = {
  external_send: "Sends outside the workspace",
  data_write: "Changes workspace data",
  code_exec: "Runs code",
  spend: "Spends money",
  tainted_egress: "Passes on untrusted content",
};

/** What calls of a category do, after "calls that": the label's verb without its third-person s. */
const categoryDoing: Record<ApprovalCategory, string> = {
  external_send: "send outside the workspace",
  data_write: "change workspace data",
  code_exec: "run code",
  spend: "spend money",
  tainted_egress: "pass on untrusted content",
};

export const policyModes = ["ask", "allow", "deny"] as const;
export type PolicyMode = (typeof policyModes)[number];

export const policyOverridesSchema = z.object({
  tools: z.record(z.string().regex(/^[a-z]+\.[a-z_]+$/), z.enum(policyModes)).default({}),
  categories: z.partialRecord(z.enum(approvalCategories), z.enum(policyModes)).default({}),
});
export type PolicyOverrides = z.infer<typeof policyOverridesSchema>;

export type PolicyDecision =
  | { kind: "allow" }
  | { kind: "require_approval"; category: ApprovalCategory; reason: string }
  | { kind: "deny"; reason: string };

/** Effects that carry content or consequences out of the run: gated once untrusted content is in it. */
const egressEffects: readonly ToolEffect[] = ["sends_internal", "sends_externally", "writes_workspace", "spends_money", "executes_code", "writes_computer"];

/**
 * How a category is decided when the workspace's policy does not say. Code runs in the agent's own sandbox, with no
 * network and nothing of the host in it: it runs without asking, unless the run has read untrusted content (then it
 * asks, like every egress) or the policy says otherwise.
 */
export const categoryDefaults: Partial<Record<ApprovalCategory, PolicyMode>> = { code_exec: "allow" };

/** Whether a category's default applies to a call: code that can reach the network is not contained, so it asks. */
function defaultApplies(category: ApprovalCategory, effects: readonly ToolEffect[]): boolean {
  return !(category === "code_exec" && effects.includes("sends_externally"));
}

export function baseCategory(effects: readonly ToolEffect[]): ApprovalCategory | null {
  if (effects.includes("spends_money")) return "spend";
  if (effects.includes("executes_code")) return "code_exec";
  if (effects.includes("sends_externally")) return "external_send";
  if (effects.includes("writes_workspace")) return "data_write";
  return null;
}

/**
 * Classifies a call from the tool's declared effects and the run's taint,
 * then applies the workspace's overrides. Overrides can tighten anything
 * (ask, deny) but loosening has a floor: a run that has read untrusted
 * content never passes it on without a person's approval.
 */
export function classifyCall(input: {
  tool: string;
  effects: readonly ToolEffect[];
  taint: readonly TaintSource[];
  overrides?: PolicyOverrides;
}): PolicyDecision {
  const overrides = input.overrides ?? { tools: {}, categories: {} };
  const tainted = input.taint.length > 0 && input.effects.some((e) => egressEffects.includes(e));
  const base = baseCategory(input.effects);
  const category: ApprovalCategory | null = tainted ? "tainted_egress" : base;
  const toolMode = overrides.tools[input.tool];
  const categoryMode = category ? (overrides.categories[category] ?? (defaultApplies(category, input.effects) ? categoryDefaults[category] : undefined)) : undefined;
  const sources = [...new Set(input.taint.map((t) => taintNoun(t.source)))].join("; ");

  if (toolMode === "deny" || categoryMode === "deny") {
    return { kind: "deny", reason: `The workspace policy denies ${toolMode === "deny" ? `\`${input.tool}\`` : `calls that ${categoryDoing[category!]}`}.` };
  }
  if (tainted) {
    return { kind: "require_approval", category: "tainted_egress", reason: `The run has read untrusted content (${sources}) and this call passes content on.` };
  }
  if (toolMode === "ask" || categoryMode === "ask") {
    return { kind: "require_approval", category: category ?? "data_write", reason: "The workspace policy asks for approval of this call." };
  }
  if (toolMode === "allow" || categoryMode === "allow") return { kind: "allow" };
  if (category) {
    const networked = category === "code_exec" && input.effects.includes("sends_externally");
    return { kind: "require_approval", category, reason: networked ? "This call runs code with access to the internet." : `This call ${categoryLabels[category].toLowerCase()}.` };
  }
  return { kind: "allow" };
}

export const defaultFourEyesCategories: ApprovalCategory[] = ["external_send"];
export const DEFAULT_APPROVAL_TTL_SECONDS = 24 * 60 * 60;

export interface WorkspacePolicy {
  overrides: PolicyOverrides;
  fourEyesCategories: ApprovalCategory[];
  approvalTtlSeconds: number;
}

/** The policy part of a workspace's settings, with defaults for what was never set. */
export function workspacePolicy(settings: WorkspaceSettings | null | undefined): WorkspacePolicy {
  const raw = (settings ?? {}) as WorkspaceSettings & { policy?: unknown };
  const parsed = policyOverridesSchema.safeParse(raw.policy ?? {});
  return {
    overrides: parsed.success ? parsed.data : { tools: {}, categories: {} },
    fourEyesCategories: (raw.fourEyesCategories as ApprovalCategory[] | undefined) ?? defaultFourEyesCategories,
    approvalTtlSeconds: raw.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS,
  };
}
