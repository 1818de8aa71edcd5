import { describe, expect, it } from "vitest";
import { breakerKeyFor, CircuitBreakers, type BreakerKey } from "../../lib/safety/dispatch";
import { httpFetchTool } from "../../lib/tools/http-fetch";
import { slackPostTool } from "../../lib/tools/slack-post";
import { memoryRememberTool } from "../../lib/tools/memory";

const key = (workspaceId: string, destination: string | null = "example.com"): BreakerKey => ({ workspaceId, tool: "http.fetch", destination });

/** Three failures open a breaker for 10 s on a clock the test moves. */
function breakers() {
  const clock = { now: 1_000 };
  return { clock, breakers: new CircuitBreakers(3, 10_000, () => clock.now) };
}

function fail(b: CircuitBreakers, k: BreakerKey, times: number) {
  for (let i = 0; i < times; i++) b.record(k, "failure");
}

describe("circuit breakers", () => {
  it("stay closed below the threshold and open at 3 failures in a row, refusing for the 10 s cool-down", () => {
    const { clock, breakers: b } = breakers();
    const a = key("ws-a");
    fail(b, a, 2);
    expect(b.stateOf(a)).toBe("closed");
    expect(b.check(a)).toBeNull();
    b.record(a, "failure");
    expect(b.stateOf(a)).toBe("open");
    expect(b.check(a)).toBe("`http.fetch` to example.com failed 3 times in a row; it is paused for 10 s.");
    clock.now += 9_999;
    expect(b.check(a)).toMatch(/paused for 1 s/);
  });

  it("a success in between resets the count: 2 failures, a success, 2 failures stays closed", () => {
    const { breakers: b } = breakers();
    const a = key("ws-a");
    fail(b, a, 2);
    b.record(a, "success");
    fail(b, a, 2);
    expect(b.stateOf(a)).toBe("closed");
  });

  it("neutral outcomes (refused by rule) never count: 10 refusals leave the breaker closed", () => {
    const { breakers: b } = breakers();
    const a = key("ws-a");
    for (let i = 0; i < 10; i++) b.record(a, "neutral");
    expect(b.stateOf(a)).toBe("closed");
    expect(b.check(a)).toBeNull();
  });

  it("after the cool-down lets exactly one trial through, and the trial's success closes the breaker", () => {
    const { clock, breakers: b } = breakers();
    const a = key("ws-a");
    fail(b, a, 3);
    clock.now += 10_000;
    expect(b.stateOf(a)).toBe("half_open");
    expect(b.check(a)).toBeNull();
    expect(b.check(a)).toMatch(/a trial call is under way/);
    b.record(a, "success");
    expect(b.stateOf(a)).toBe("closed");
    expect(b.check(a)).toBeNull();
    fail(b, a, 2);
    expect(b.stateOf(a)).toBe("closed");
  });

  it("a failed trial re-opens the breaker for another full cool-down", () => {
    const { clock, breakers: b } = breakers();
    const a = key("ws-a");
    fail(b, a, 3);
    clock.now += 10_000;
    expect(b.check(a)).toBeNull();
    b.record(a, "failure");
    expect(b.stateOf(a)).toBe("open");
    expect(b.check(a)).toMatch(/failed 4 times in a row; it is paused for 10 s/);
    clock.now += 10_000;
    expect(b.check(a)).toBeNull();
  });

  it("a trial refused by rule tests nothing: the next call becomes the trial", () => {
    const { clock, breakers: b } = breakers();
    const a = key("ws-a");
    fail(b, a, 3);
    clock.now += 10_000;
    expect(b.check(a)).toBeNull();
    b.record(a, "neutral");
    expect(b.stateOf(a)).toBe("half_open");
    expect(b.check(a)).toBeNull();
    expect(b.check(a)).toMatch(/trial call is under way/);
  });

  it("a trial that never reports lapses after a cool-down, and the next call becomes the trial", () => {
    const { clock, breakers: b } = breakers();
    const a = key("ws-a");
    fail(b, a, 3);
    clock.now += 10_000;
    expect(b.check(a)).toBeNull();
    clock.now += 9_999;
    expect(b.check(a)).toMatch(/trial call is under way/);
    clock.now += 1;
    expect(b.check(a)).toBeNull();
  });

  it("an open breaker pauses one workspace's calls to one destination only", () => {
    const { breakers: b } = breakers();
    fail(b, key("ws-a", "example.com"), 3);
    expect(b.check(key("ws-a", "example.com"))).not.toBeNull();
    expect(b.check(key("ws-b", "example.com"))).toBeNull();
    expect(b.check(key("ws-a", "example.org"))).toBeNull();
    expect(b.check(key("ws-a", null))).toBeNull();
    expect(b.check({ workspaceId: "ws-a", tool: "slack.post", destination: "example.com" })).toBeNull();
  });

  it("keys calls by workspace, tool and the destination the tool names", () => {
    expect(breakerKeyFor("ws", httpFetchTool, { url: "https://Example.com:8443/a?b" })).toEqual({ workspaceId: "ws", tool: "http.fetch", destination: "example.com:8443" });
    expect(breakerKeyFor("ws", httpFetchTool, { url: "not a url" })).toEqual({ workspaceId: "ws", tool: "http.fetch", destination: null });
    expect(breakerKeyFor("ws", slackPostTool, { channel: "#general", text: "hi" })).toEqual({ workspaceId: "ws", tool: "slack.post", destination: "slack" });
    expect(breakerKeyFor("ws", memoryRememberTool, { text: "x" })).toEqual({ workspaceId: "ws", tool: "memory.remember", destination: null });
  });
});
