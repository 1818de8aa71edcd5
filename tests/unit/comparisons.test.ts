import { describe, expect, it } from "vitest";
import { parseAnswer, parseVerdict } from "../../lib/judge/judge";
import { offlineRubric, rubricSchema } from "../../lib/missions/compare";

describe("the comparison judge's rubric", () => {
  it("the offline rule scores success, the goal's words found and the length of the result", () => {
    const full = offlineRubric("Plan the launch party", { state: "succeeded" }, "The launch party plan: cake at noon.");
    expect([full.correctness.score, full.completeness.score, full.clarity.score]).toEqual([8, 10, 8]);
    const half = offlineRubric("Plan the launch party", { state: "succeeded" }, "A party.");
    // Goal words of four letters or more: plan, launch, party; one of three is found.
    expect(half.completeness).toEqual({ score: 4, reason: "The result mentions 33% of the goal's words." });
    const long = offlineRubric("Plan the launch party", { state: "succeeded" }, "x".repeat(2_000));
    expect(long.clarity.score).toBe(6);
    const failed = offlineRubric("Plan the launch party", { state: "failed" }, "");
    expect([failed.correctness.score, failed.completeness.score, failed.clarity.score]).toEqual([1, 1, 1]);
    expect(failed.correctness.reason).toBe("The mission failed.");
    expect(offlineRubric("Plan", { state: "cancelled" }, "").correctness.reason).toBe("The mission was stopped.");
  });

  it("a model's answer counts only when it is the rubric, scores 1 to 10", () => {
    const good = 'Here: {"correctness": {"score": 7, "reason": "Right."}, "completeness": {"score": 5, "reason": "Half."}, "clarity": {"score": 9, "reason": "Clear."}}';
    expect(parseAnswer(good, rubricSchema, { lenient: true })?.clarity).toEqual({ score: 9, reason: "Clear." });
    // Only a score is read out of prose: the same answer is no verdict when read strictly.
    expect(parseAnswer(good, rubricSchema)).toBeNull();
    expect(parseAnswer(good.replace('"score": 9', '"score": 11'), rubricSchema, { lenient: true })).toBeNull();
    expect(parseAnswer('{"correctness": {"score": 7, "reason": "Right."}}', rubricSchema, { lenient: true })).toBeNull();
    expect(parseAnswer("no json here", rubricSchema, { lenient: true })).toBeNull();
    // The governor's verdicts still parse as before.
    expect(parseVerdict('{"decision": "allow", "reason": "Fine."}')).toEqual({ decision: "allow", reason: "Fine." });
  });
});
