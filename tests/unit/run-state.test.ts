import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { DrizzleQueryError } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseCheckpoint } from "../../lib/runtime/checkpoint";
import { isTransientDbError, withDbRetry } from "../../lib/db/retry";
import { fourEyesApplies } from "../../lib/safety/approvals";
import { originHref, requestLine } from "../../components/approvals/approval-text";

/** The error node really throws when nothing listens on a port. */
async function refusedConnection(): Promise<Error> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", resolve);
  });
}

/** A server error as the PostgreSQL drivers raise it (a `code` SQLSTATE), wrapped the way Drizzle wraps it. */
function serverError(sqlstate: string, message: string) {
  const cause = Object.assign(new Error(message), { code: sqlstate, severity: "FATAL" });
  return new DrizzleQueryError("update agent_runs set ...", [], cause);
}

describe("transient database errors", () => {
  it("classifies a refused connection, a server shutdown, serialization failures, deadlocks and 08xxx as transient", async () => {
    const refused = await refusedConnection();
    expect((refused as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    expect(isTransientDbError(refused)).toBe(true);
    expect(isTransientDbError(new DrizzleQueryError("select 1", [], refused))).toBe(true);
    expect(isTransientDbError(serverError("57P01", "terminating connection due to administrator command"))).toBe(true);
    expect(isTransientDbError(serverError("40001", "could not serialize access"))).toBe(true);
    expect(isTransientDbError(serverError("40P01", "deadlock detected"))).toBe(true);
    expect(isTransientDbError(serverError("08006", "connection failure"))).toBe(true);
    expect(isTransientDbError(Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" }))).toBe(true);
  });

  it("does not classify a statement's own failure (unique violation, syntax, a plain error) as transient", () => {
    expect(isTransientDbError(serverError("23505", "duplicate key value"))).toBe(false);
    expect(isTransientDbError(serverError("42601", "syntax error"))).toBe(false);
    expect(isTransientDbError(new Error("boom"))).toBe(false);
    expect(isTransientDbError(null)).toBe(false);
  });

  it("withDbRetry tries again after transient failures with growing pauses, then returns the result", async () => {
    const pauses: number[] = [];
    let calls = 0;
    const result = await withDbRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw serverError("57P01", "terminating connection due to administrator command");
        return "done";
      },
      { baseDelayMs: 100, sleep: async (ms) => void pauses.push(ms) },
    );
    expect(result).toBe("done");
    expect(calls).toBe(3);
    expect(pauses).toHaveLength(2);
    // Jittered between half and all of 100 ms, then of 200 ms.
    expect(pauses[0]).toBeGreaterThanOrEqual(50);
    expect(pauses[0]).toBeLessThanOrEqual(100);
    expect(pauses[1]).toBeGreaterThanOrEqual(100);
    expect(pauses[1]).toBeLessThanOrEqual(200);
  });

  it("withDbRetry does not repeat work that failed for its own reasons, and gives up after the last attempt", async () => {
    let calls = 0;
    const unique = serverError("23505", "duplicate key value");
    await expect(
      withDbRetry(async () => {
        calls += 1;
        throw unique;
      }, { sleep: async () => undefined }),
    ).rejects.toBe(unique);
    expect(calls).toBe(1);

    calls = 0;
    const refused = await refusedConnection();
    await expect(
      withDbRetry(async () => {
        calls += 1;
        throw refused;
      }, { attempts: 4, sleep: async () => undefined }),
    ).rejects.toBe(refused);
    expect(calls).toBe(4);
  });
});

const validCheckpoint = {
  version: 2,
  system: "You are a bot.",
  conversation: [
    { role: "user", content: [{ type: "text", text: "post hello" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "slack.post", input: { channel: "#general", text: "hello" } }] },
  ],
  fullText: "",
  position: 1,
  modelCalls: 1,
  taint: [{ source: "web:example.com", stepId: null }],
  batch: [{ id: "c1", name: "slack.post", input: { channel: "#general", text: "hello" } }],
  pending: [{ id: "c1", name: "slack.post", input: { channel: "#general", text: "hello" } }],
  results: [],
};

describe("the run checkpoint", () => {
  it("reads a version 2 checkpoint, and a version 1 checkpoint as version 2", () => {
    expect(parseCheckpoint(validCheckpoint)).toEqual(validCheckpoint);
    expect(parseCheckpoint({ ...validCheckpoint, version: 1 }).version).toBe(2);
  });

  it("rejects a damaged checkpoint with internal:checkpoint", () => {
    const damaged = [
      null,
      "text",
      { ...validCheckpoint, version: 3 },
      { ...validCheckpoint, conversation: "garbled" },
      { ...validCheckpoint, conversation: [{ role: "system", content: [] }] },
      { ...validCheckpoint, pending: [{ id: "c1" }] },
      { ...validCheckpoint, position: -1 },
      // A pending call that is not in the batch cannot be matched to its result.
      { ...validCheckpoint, pending: [{ id: "other", name: "slack.post", input: {} }] },
    ];
    for (const raw of damaged) {
      expect(() => parseCheckpoint(raw), JSON.stringify(raw)?.slice(0, 60)).toThrow(expect.objectContaining({ code: "internal:checkpoint" }));
    }
  });
});

describe("the runtime's module graph", () => {
  it("has no import cycle among lib/runtime modules (the runner and the tool path no longer import each other)", () => {
    const dir = path.resolve("lib/runtime");
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".ts"));
    const edges = new Map<string, string[]>();
    for (const file of files) {
      const source = fs.readFileSync(path.join(dir, file), "utf8");
      const targets = [...source.matchAll(/from "\.\/([\w-]+)"/g)].map((m) => `${m[1]}.ts`).filter((t) => files.includes(t));
      edges.set(file, targets);
    }
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (trail.includes(file)) {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(" → "));
        return;
      }
      for (const next of edges.get(file) ?? []) visit(next, [...trail, file]);
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
    expect(edges.get("tool-call.ts")).not.toContain("runner.ts");
  });
});

describe("four eyes", () => {
  it("applies to a four-eyes category and to its tainted variant, not to other tainted calls", () => {
    const cats = ["external_send"];
    expect(fourEyesApplies(cats, "external_send", ["sends_externally"])).toBe(true);
    // A send outside that became tainted_egress because the run read a page is still a send outside.
    expect(fourEyesApplies(cats, "tainted_egress", ["sends_externally"])).toBe(true);
    // A tainted internal message is not a send outside.
    expect(fourEyesApplies(cats, "tainted_egress", ["sends_internal"])).toBe(false);
    expect(fourEyesApplies(cats, "data_write", ["writes_workspace"])).toBe(false);
    expect(fourEyesApplies([...cats, "tainted_egress"], "tainted_egress", ["sends_internal"])).toBe(true);
    // A tainted request of a tool nobody knows any more is treated as four eyes.
    expect(fourEyesApplies(cats, "tainted_egress", undefined)).toBe(true);
  });
});

describe("the approval card's words", () => {
  it("says who asked, for whom, via which agents, and links to where the chain began", () => {
    const agent = { id: "a", handle: "herald", name: "Herald", color: "#000000" };
    expect(requestLine({ agent, onBehalfOf: "Rita", requestedBy: "Rita", via: ["atlas"] })).toBe("asked by @herald for Rita, via @atlas");
    expect(requestLine({ agent, onBehalfOf: "Rita", requestedBy: null, via: ["atlas", "relay"] })).toBe("asked by @herald for Rita, via @atlas → @relay");
    expect(requestLine({ agent, onBehalfOf: null, requestedBy: null, via: [] })).toBe("asked by @herald");
    expect(originHref("demo", { originSessionId: "s1", originRoomId: null, sessionId: null })).toBe("/w/demo/chat/s1");
    expect(originHref("demo", { originSessionId: null, originRoomId: "r1", sessionId: null })).toBe("/w/demo/rooms/r1");
  });
});
