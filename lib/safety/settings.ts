import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { workspaces } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import type { EventBus } from "../db/bus";
import type { ToolRegistry } from "../tools/registry";
import { announceWithdrawn, withdrawDenied, type WithdrawnApproval } from "./approvals";
import { approvalCategories, categoryLabels, classifyCall, policyOverridesSchema, workspacePolicy, type ApprovalCategory, type WorkspacePolicy } from "./policy";

export interface PolicyView extends WorkspacePolicy {
  /** Send it back with the next save: a save made from an older version is refused (409 conflict:stale). */
  version: number;
  tools: { name: string; description: string; effects: string[]; defaultDecision: string; taintedDecision: string }[];
  categories: { id: ApprovalCategory; label: string }[];
}

const describe = (d: ReturnType<typeof classifyCall>) => (d.kind === "allow" ? "allow" : d.kind === "deny" ? "deny" : `ask: ${d.category}`);

/** The workspace's policy as a table a person can read: each tool, what it does, and what happens to its calls. */
export async function getPolicyView(db: Db, workspaceId: string, tools: ToolRegistry): Promise<PolicyView> {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  if (!ws) throw new AppError("not_found:workspace");
  const policy = workspacePolicy(ws.settings);
  const tainted = [{ source: "web:example.com", stepId: null }];
  return {
    ...policy,
    version: ws.settings.policyVersion ?? 0,
    tools: tools.all().map((t) => ({
      name: t.name,
      description: t.description,
      effects: [...t.effects],
      defaultDecision: describe(classifyCall({ tool: t.name, effects: t.effects, taint: [] })),
      taintedDecision: describe(classifyCall({ tool: t.name, effects: t.effects, taint: tainted, overrides: policy.overrides })),
    })),
    categories: approvalCategories.map((id) => ({ id, label: categoryLabels[id] })),
  };
}

export const updatePolicySchema = z.object({
  overrides: policyOverridesSchema,
  fourEyesCategories: z.array(z.enum(approvalCategories)).max(approvalCategories.length),
  approvalTtlSeconds: z.number().int().min(60).max(30 * 24 * 3600),
  version: z.number().int().min(0).optional(),
});

/**
 * Replaces the workspace's policy settings. It applies to the next call, and to the requests already waiting: those
 * whose tool or category it now denies are withdrawn in the same transaction (their runs are to be resumed by the
 * caller: `withdrawn`). Four eyes and the expiry stay as they were for requests already asked.
 */
export async function updatePolicy(
  db: Db,
  bus: EventBus,
  workspaceId: string,
  actorId: string,
  tools: ToolRegistry,
  input: z.infer<typeof updatePolicySchema>,
): Promise<{ policy: PolicyView; withdrawn: WithdrawnApproval[] }> {
  const unknown = Object.keys(input.overrides.tools).filter((name) => !tools.get(name));
  if (unknown.length > 0) throw new AppError("unprocessable:policy", `Unknown tools: ${unknown.join(", ")}`);
  const withdrawn = await db.transaction(async (tx) => {
    const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (!ws) throw new AppError("not_found:workspace");
    const current = ws.settings.policyVersion ?? 0;
    if (input.version !== undefined && input.version !== current) {
      throw new AppError("conflict:stale", "Someone else changed the policy since you opened it. Reload to see their changes, then edit again.", {
        details: { version: current },
      });
    }
    const settings = {
      ...ws.settings,
      policy: input.overrides,
      fourEyesCategories: input.fourEyesCategories,
      approvalTtlSeconds: input.approvalTtlSeconds,
      policyVersion: current + 1,
    };
    await tx.update(workspaces).set({ settings }).where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: actorId }, action: "policy.updated", target: { type: "workspace", id: workspaceId }, detail: input });
    return withdrawDenied(tx, { workspaceId, overrides: input.overrides, tools, actorId });
  });
  await announceWithdrawn(db, bus, withdrawn);
  return { policy: await getPolicyView(db, workspaceId, tools), withdrawn };
}
