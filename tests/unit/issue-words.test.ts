import { describe, expect, it } from "vitest";
import { z } from "zod";
import { issueWords } from "../../lib/issue-words";

/** The words a person is shown for the first problem of a value. */
function wordsFor(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value, { error: issueWords });
  if (result.success) throw new Error("expected the value to be refused");
  return result.error.issues[0]!.message;
}

describe("what is wrong with a request, in words", () => {
  it("names the field and the limit of a text, a number and a list", () => {
    expect(wordsFor(z.object({ reason: z.string().max(2000) }), { reason: "x".repeat(2001) })).toBe("The reason is too long: at most 2,000 characters.");
    expect(wordsFor(z.object({ name: z.string().min(3) }), { name: "ab" })).toBe("The name is too short: at least 3 characters.");
    expect(wordsFor(z.object({ name: z.string().trim().min(1) }), { name: "  " })).toBe("The name is empty: write something.");
    expect(wordsFor(z.object({ monthlyBudgetCredits: z.number().int().max(1e15) }), { monthlyBudgetCredits: 2e15 })).toBe(
      "The monthly budget credits is too large: at most 1,000,000,000,000,000.",
    );
    expect(wordsFor(z.object({ after: z.number().gt(0) }), { after: 0 })).toBe("The after is too small: more than 0.");
    expect(wordsFor(z.object({ tools: z.array(z.string()).max(2) }), { tools: ["a", "b", "c"] })).toBe("The tools has too many items: at most 2 items.");
  });

  it("says a field is missing, of the wrong kind, or not one of the choices", () => {
    expect(wordsFor(z.object({ role: z.enum(["member", "reviewer"]) }), {})).toBe("The role is missing.");
    expect(wordsFor(z.object({ role: z.enum(["member", "reviewer"]) }), { role: "boss" })).toBe("The role should be one of: member, reviewer.");
    expect(wordsFor(z.object({ tools: z.array(z.string()) }), { tools: ["a", 7] })).toBe("Item 2 of the tools should be text.");
    expect(wordsFor(z.object({ email: z.email() }), { email: "nope" })).toBe("The email is not an email address.");
    expect(wordsFor(z.object({ agent_id: z.uuid() }), { agent_id: "x" })).toBe("The agent id is not a valid id.");
    expect(wordsFor(z.string(), 3)).toBe("The value should be text.");
  });

  it("keeps the words a schema gives itself", () => {
    expect(wordsFor(z.object({ email: z.string().pipe(z.email("Enter a valid email address")) }), { email: "nope" })).toBe("Enter a valid email address");
    expect(wordsFor(z.object({ timeZone: z.string().refine(() => false, "Unknown time zone") }), { timeZone: "Mars/Base" })).toBe("Unknown time zone");
  });
});
