/**
 * A request to let a run or a mission spend past its cap, as the product says it: plain data and words, safe to use in
 * the browser as on the server.
 */
import { z } from "zod";
import { formatUsd } from "./prices";

/**
 * The name a request to go past a cap goes by where a tool's name would be. Tool names have no colon, so no tool call
 * is ever taken for one, and no grant, policy or edit form applies to it.
 */
export const CAP_TOOL = "budget:continue";
/** Its category: decided by managers and owners only, never by the governor, never withdrawn by the policy. */
export const CAP_CATEGORY = "budget";

export const capRequestInputSchema = z.object({
  scope: z.enum(["run", "mission"]),
  /** The mission run whose cap it is (a run's cap is the approval's own run). */
  missionId: z.uuid().optional(),
  /** "@forge's run", "The mission “Launch”": what the sentences are about. */
  subject: z.string().min(1).max(300),
  spentCredits: z.number().int().min(0),
  capCredits: z.number().int().min(1),
  /** What was already raised when it asked: an approval raises from there, so two asked at once raise it once. */
  raisedCredits: z.number().int().min(0),
  /** How much more an approval lets it spend: the cap as it was set. */
  stepCredits: z.number().int().min(1),
});
export type CapRequestInput = z.infer<typeof capRequestInputSchema>;

export function isCapRequest(approval: { tool: string; category?: string }): boolean {
  return approval.tool === CAP_TOOL;
}

/** The question, with its figures, for those who see spend. */
export function capQuestion(input: CapRequestInput): string {
  return `${input.subject} has spent ${formatUsd(input.spentCredits)} of its ${formatUsd(input.capCredits)} cap; continue with another ${formatUsd(input.stepCredits)}?`;
}

/** What a question of `capQuestion` is about, read back from its words (a journaled card carries no input). */
export function capAboutOfQuestion(preview: unknown): Pick<CapRequestInput, "subject" | "scope"> {
  const title = String((preview as { title?: unknown } | null)?.title ?? "");
  const subject = title.split(" has spent ")[0] || "This run";
  return { subject, scope: subject.startsWith("The mission ") ? "mission" : "run" };
}

/** The same question without figures, for those who may not see spend (and the world feed). */
export function capQuestionWithoutFigures(input: Pick<CapRequestInput, "subject">): string {
  return `${input.subject} has reached its spending cap; may it spend as much again?`;
}

/** Why a run waits before its next model call, as its chat and its page say it. */
export function capReason(input: Pick<CapRequestInput, "scope">): string {
  return input.scope === "run"
    ? "This run has spent what one run of its agent may spend, so it waits before its next model call; a manager or an owner decides whether it goes on."
    : "This mission has spent what it may spend, so this step waits before its next model call; a manager or an owner decides whether it goes on.";
}

/** The card of the request: the question and what each answer does. */
export function capPreview(input: CapRequestInput) {
  const what = input.scope === "run" ? "the run" : "the mission";
  return {
    title: capQuestion(input),
    fields: [
      { label: "Spent so far", value: formatUsd(input.spentCredits) },
      { label: "Cap", value: formatUsd(input.capCredits) },
      { label: "If approved", value: `The cap becomes ${formatUsd(input.capCredits + input.stepCredits)} and ${what} goes on.` },
      { label: "If rejected", value: `${what === "the run" ? "The run" : "This step"} stops here and keeps what it wrote so far.` },
    ],
  };
}

/** The card without figures, for those who may not see spend. */
export function capPreviewWithoutFigures(input: Pick<CapRequestInput, "subject" | "scope">) {
  return { title: capQuestionWithoutFigures(input), fields: [{ label: "Decided by", value: "A manager or an owner" }] };
}

/** Why a run stopped at its cap (rejected, expired or withdrawn), with no figures: everyone who reads the run reads it. */
export function capStopSentence(input: Pick<CapRequestInput, "subject" | "scope">, status: string, reason: string | null): string {
  const why =
    status === "rejected"
      ? `a manager decided it may not spend more${reason ? ` (“${reason}”)` : ""}`
      : status === "expired"
        ? "nobody decided in time whether it may spend more"
        : "its request to spend more was withdrawn";
  const kept = input.scope === "run" ? "What the run wrote so far is kept." : "What this step wrote so far is kept.";
  return `${input.subject} reached its spending cap and ${why}, so the run stopped before its next model call. ${kept}`;
}
