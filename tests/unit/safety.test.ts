import { describe, expect, it } from "vitest";
import { authorizeCall, correlateResults, errorResult, validCallIds, type ProposedCall } from "../../lib/safety/dispatch";
import { callFingerprint, canonicalJson } from "../../lib/safety/fingerprint";
import { classifyCall, workspacePolicy } from "../../lib/safety/policy";
import { describeTaintSource, taintFromAgent, taintSourcesOf } from "../../lib/safety/taint";
import { memoryRecallTool } from "../../lib/tools/memory";
import type { ToolEffect } from "../../lib/tools/types";

const web = [{ source: "web:example.com", stepId: "s1" }];

describe("policy", () => {
  it.each<[string, ToolEffect[], boolean, string]>([
    ["memory.recall", ["reads_workspace"], false, "allow"],
    ["memory.recall", ["reads_workspace"], true, "allow"],
    ["http.fetch", ["reads_external"], true, "allow"],
    ["memory.remember", ["writes_memory"], true, "allow"],
    ["chat.send", ["sends_internal"], false, "allow"],
    ["chat.send", ["sends_internal"], true, "tainted_egress"],
    ["slack.post", ["sends_externally"], false, "external_send"],
    ["slack.post", ["sends_externally"], true, "tainted_egress"],
    ["connections.update", ["writes_workspace"], false, "data_write"],
    // Code in the agent's own sandbox runs without asking, until the run has read untrusted content.
    ["shell.exec", ["executes_code", "writes_computer"], false, "allow"],
    ["shell.exec", ["executes_code", "writes_computer"], true, "tainted_egress"],
    // With the network, code can send anything anywhere: it asks by default.
    ["shell.exec", ["executes_code", "writes_computer", "reads_external", "sends_externally"], false, "code_exec"],
    ["shell.exec", ["executes_code", "writes_computer", "reads_external", "sends_externally"], true, "tainted_egress"],
    ["files.write", ["writes_computer"], false, "allow"],
    ["files.write", ["writes_computer"], true, "tainted_egress"],
    ["files.read", ["reads_workspace"], true, "allow"],
    ["cards.charge", ["spends_money", "sends_externally"], false, "spend"],
  ])("%s with effects %j, tainted=%s → %s", (tool, effects, tainted, expected) => {
    const decision = classifyCall({ tool, effects, taint: tainted ? web : [] });
    expect(decision.kind === "allow" ? "allow" : decision.kind === "require_approval" ? decision.category : "deny").toBe(expected);
  });

  it("a workspace can ask before code runs, or deny it, though code runs without asking by default", () => {
    const effects: ToolEffect[] = ["executes_code", "writes_computer"];
    expect(classifyCall({ tool: "shell.exec", effects, taint: [], overrides: { tools: {}, categories: { code_exec: "ask" } } })).toMatchObject({
      kind: "require_approval",
      category: "code_exec",
    });
    expect(classifyCall({ tool: "shell.exec", effects, taint: [], overrides: { tools: { "shell.exec": "deny" }, categories: {} } }).kind).toBe("deny");
    // A workspace that lets code run without asking lets networked code run too: it said so for the category.
    const networked: ToolEffect[] = [...effects, "reads_external", "sends_externally"];
    expect(classifyCall({ tool: "shell.exec", effects: networked, taint: [] })).toEqual({ kind: "require_approval", category: "code_exec", reason: "This call runs code with access to the internet." });
    expect(classifyCall({ tool: "shell.exec", effects: networked, taint: [], overrides: { tools: {}, categories: { code_exec: "allow" } } }).kind).toBe("allow");
  });

  it("workspace overrides tighten anything and loosen only untainted calls", () => {
    const effects: ToolEffect[] = ["sends_externally"];
    expect(classifyCall({ tool: "slack.post", effects, taint: [], overrides: { tools: {}, categories: { external_send: "allow" } } }).kind).toBe("allow");
    expect(classifyCall({ tool: "slack.post", effects, taint: web, overrides: { tools: { "slack.post": "allow" }, categories: {} } })).toMatchObject({
      kind: "require_approval",
      category: "tainted_egress",
    });
    expect(classifyCall({ tool: "memory.recall", effects: ["reads_workspace"], taint: [], overrides: { tools: { "memory.recall": "ask" }, categories: {} } }).kind).toBe(
      "require_approval",
    );
    expect(classifyCall({ tool: "slack.post", effects, taint: web, overrides: { tools: { "slack.post": "deny" }, categories: {} } }).kind).toBe("deny");
    expect(classifyCall({ tool: "slack.post", effects, taint: [], overrides: { tools: {}, categories: { external_send: "deny" } } }).kind).toBe("deny");
  });

  it("reads a workspace's settings with defaults: four eyes on external sends, 24 h to decide", () => {
    expect(workspacePolicy({})).toEqual({ overrides: { tools: {}, categories: {} }, fourEyesCategories: ["external_send"], approvalTtlSeconds: 86_400 });
    expect(workspacePolicy({ fourEyesCategories: [], approvalTtlSeconds: 60 })).toMatchObject({ fourEyesCategories: [], approvalTtlSeconds: 60 });
  });
});

describe("fingerprints", () => {
  it("do not depend on key order, and change with any value", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(callFingerprint("slack.post", { channel: "#a", text: "hi" })).toBe(callFingerprint("slack.post", { text: "hi", channel: "#a" }));
    expect(callFingerprint("slack.post", { channel: "#a", text: "hi" })).not.toBe(callFingerprint("slack.post", { channel: "#a", text: "hi!" }));
    expect(callFingerprint("slack.post", { channel: "#a" })).not.toBe(callFingerprint("chat.send", { channel: "#a" }));
  });
});

describe("governed dispatch", () => {
  const call = (id: string): ProposedCall => ({ id, name: "t", input: {} });
  const ok = (id: string) => ({ type: "tool_result" as const, toolUseId: id, content: `"${id}"` });

  it("needs unique, non-empty call ids", () => {
    expect(validCallIds([call("a"), call("b")])).toBe(true);
    expect(validCallIds([call("a"), call("a")])).toBe(false);
    expect(validCallIds([call(""), call("b")])).toBe(false);
    expect(validCallIds([call("  ")])).toBe(false);
  });

  it("matches results to calls by id; a missing result is 'no result'; a duplicate or unknown id fails every call", () => {
    expect(correlateResults([call("a"), call("b")], [ok("b"), ok("a")]).map((r) => r.content)).toEqual(['"a"', '"b"']);
    const missing = correlateResults([call("a"), call("b")], [ok("a")]);
    expect(missing[1]).toMatchObject({ isError: true });
    expect(missing[1]!.content).toContain("no result");
    expect(missing[0]!.isError).toBeUndefined();
    expect(correlateResults([call("a"), call("b")], [ok("a"), ok("a"), ok("b")]).every((r) => r.isError)).toBe(true);
    expect(correlateResults([call("a")], [ok("a"), ok("zzz")]).every((r) => r.isError)).toBe(true);
    expect(errorResult("x", "boom")).toEqual({ type: "tool_result", toolUseId: "x", content: '{"error":"boom"}', isError: true });
  });

  it("applies rewrites that keep id and kind, denies others, and stops after bounded rounds", async () => {
    const rewrite = await authorizeCall(call("a"), (c) => (c.input.done ? { kind: "allow" } : { kind: "modify", call: { ...c, input: { done: true } } }));
    expect(rewrite).toEqual({ ok: true, call: { id: "a", name: "t", input: { done: true } } });
    expect(await authorizeCall(call("a"), (c) => ({ kind: "modify", call: { ...c, id: "b" } }))).toMatchObject({ ok: false, reason: expect.stringContaining("identity") });
    expect(await authorizeCall(call("a"), (c) => ({ kind: "modify", call: { ...c, name: "other" } }))).toMatchObject({ ok: false });
    let rounds = 0;
    const endless = await authorizeCall(call("a"), (c) => {
      rounds += 1;
      return { kind: "modify", call: { ...c, input: { n: rounds } } };
    });
    expect(endless).toMatchObject({ ok: false, reason: expect.stringContaining("did not settle") });
    expect(rounds).toBe(4);
    expect(await authorizeCall(call("a"), () => ({ kind: "deny", reason: "no" }))).toEqual({ ok: false, reason: "no" });
  });
});

describe("taint handed on by an agent", () => {
  it("a message from a clean agent carries that agent alone", () => {
    expect(taintFromAgent([], "atlas")).toEqual([{ source: "agent:atlas", stepId: null }]);
  });

  it("a message from a tainted agent carries its sources first, unlinked from its steps, then the agent, each once", () => {
    const sender = [...web, { source: "agent:scout", stepId: null }, { source: "agent:atlas", stepId: null }];
    expect(taintFromAgent(sender, "atlas")).toEqual([
      { source: "web:example.com", stepId: null },
      { source: "agent:scout", stepId: null },
      { source: "agent:atlas", stepId: null },
    ]);
  });

  it("a run woken by another agent passes nothing on without approval, whatever the workspace allows", () => {
    const decision = classifyCall({ tool: "slack.post", effects: ["sends_externally"], taint: taintFromAgent(web, "atlas"), overrides: { tools: { "slack.post": "allow" }, categories: { external_send: "allow" } } });
    expect(decision).toEqual({ kind: "require_approval", category: "tainted_egress", reason: expect.stringContaining("(a web page on example.com; a message from @atlas)") });
  });

  it("says who an agent source is, and that outside content came from outside", () => {
    expect(describeTaintSource("agent:atlas")).toContain("@atlas");
    expect(describeTaintSource("web:example.com")).toContain("outside the workspace");
  });
});

describe("taint carried by memories", () => {
  const memory = (taint: string[]) => ({ content: "x", kind: "note" as const, createdAt: "2026-01-01T00:00:00.000Z", taint });

  it("a tool's declared taint becomes a list: one source, several each once, none", () => {
    expect(taintSourcesOf("web:example.com")).toEqual(["web:example.com"]);
    expect(taintSourcesOf(["web:a.com", "agent:atlas", "web:a.com", ""])).toEqual(["web:a.com", "agent:atlas"]);
    expect(taintSourcesOf(null)).toEqual([]);
    expect(taintSourcesOf([])).toEqual([]);
  });

  it("recalled memories taint the recall with every source of every memory; clean memories with none", () => {
    const output = { query: "q", summary: "", memories: [memory(["web:a.com"]), memory([]), memory(["agent:atlas", "web:a.com"])] };
    expect(taintSourcesOf(memoryRecallTool.taint({ query: "q" }, output))).toEqual(["web:a.com", "agent:atlas"]);
    expect(taintSourcesOf(memoryRecallTool.taint({ query: "q" }, { ...output, memories: [memory([]), memory([])] }))).toEqual([]);
  });

  it("a run that recalled a memory written after reading a page sends nothing outside without approval, whatever the workspace allows", () => {
    const recalled = taintSourcesOf(memoryRecallTool.taint({ query: "q" }, { query: "q", summary: "", memories: [memory(["web:a.com"])] }));
    const decision = classifyCall({ tool: "slack.post", effects: ["sends_externally"], taint: recalled.map((source) => ({ source, stepId: "s1" })), overrides: { tools: {}, categories: { external_send: "allow" } } });
    expect(decision).toEqual({ kind: "require_approval", category: "tainted_egress", reason: expect.stringContaining("(a web page on a.com)") });
  });
});
