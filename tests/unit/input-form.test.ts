import { z } from "zod";
import { describe, expect, it } from "vitest";
import { formFields, inputChanges, labelOf, shownValue } from "../../components/approvals/input-form";
import { slackPostTool } from "../../lib/tools/slack-post";
import { toolSpec, type AnyTool } from "../../lib/tools/registry";

const schemaOf = (input: z.ZodType) => toolSpec({ ...(slackPostTool as unknown as AnyTool), input: input as AnyTool["input"] }).inputSchema;

describe("the reviewer's edit form", () => {
  it("reads the Slack tool's schema as a one-line channel field and a long text field, both required", () => {
    const fields = formFields(toolSpec(slackPostTool as unknown as AnyTool).inputSchema, { channel: "#general", text: "hi" });
    expect(fields).toEqual([
      { key: "channel", label: "Channel", kind: "text", required: true },
      { key: "text", label: "Text", kind: "longtext", required: true, maxLength: 4000 },
    ]);
  });

  it("turns numbers, booleans, choices and short strings into their own controls", () => {
    const schema = schemaOf(
      z.object({ dueDate: z.string().max(40), count: z.number().int().optional(), urgent: z.boolean(), tone: z.enum(["calm", "firm"]).describe("How it sounds") }),
    );
    expect(formFields(schema, { dueDate: "today", urgent: false, tone: "calm" })).toEqual([
      { key: "dueDate", label: "Due date", kind: "text", required: true, maxLength: 40 },
      { key: "count", label: "Count", kind: "number", required: false, integer: true },
      { key: "urgent", label: "Urgent", kind: "boolean", required: true },
      { key: "tone", label: "Tone", kind: "choice", required: true, options: ["calm", "firm"], description: "How it sounds" },
    ]);
  });

  it("falls back to the JSON editor for nested shapes, unknown schemas and values the schema does not name", () => {
    expect(formFields(schemaOf(z.object({ to: z.array(z.string()) })), { to: [] })).toBeNull();
    expect(formFields(schemaOf(z.object({ meta: z.object({ a: z.string() }) })), { meta: { a: "" } })).toBeNull();
    expect(formFields(null, {})).toBeNull();
    expect(formFields(schemaOf(z.object({ a: z.string() })), { a: "x", extra: 1 })).toBeNull();
  });

  it("lists only what the edit changes, with added and removed keys", () => {
    expect(inputChanges({ channel: "#a", text: "x", n: 1 }, { channel: "#a", text: "y", tag: "new" })).toEqual([
      { key: "text", before: "x", after: "y" },
      { key: "n", before: 1, after: undefined },
      { key: "tag", before: undefined, after: "new" },
    ]);
    expect(inputChanges({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
    expect(shownValue(undefined)).toBe("—");
    expect(shownValue({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(labelOf("user_name")).toBe("User name");
  });
});
