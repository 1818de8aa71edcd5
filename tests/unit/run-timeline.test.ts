import { describe, expect, it } from "vitest";
import { applyRunEvent, decodeRunEvent, emptyTimeline } from "../../components/chat/timeline";

const wire = (seq: number, payload: object) => JSON.stringify({ seq, at: "2026-12-01T10:00:00.000Z", ...payload });

describe("a run's timeline and its taint", () => {
  it("shows the sources a run started with (no step) and those a step brought in, each once, in order", () => {
    const events = [
      decodeRunEvent("run_tainted", wire(2, { source: "web:news.example", stepId: null })),
      decodeRunEvent("run_tainted", wire(3, { source: "agent:atlas", stepId: null })),
      decodeRunEvent("run_tainted", wire(4, { source: "web:news.example", stepId: "5b0c8a9e-1111-4c2d-9e3f-000000000001" })),
      decodeRunEvent("run_tainted", wire(5, { source: "email:ops@example.com", stepId: "5b0c8a9e-1111-4c2d-9e3f-000000000002" })),
    ];
    expect(events.every((e) => e !== null)).toBe(true);
    const timeline = events.reduce((t, e) => applyRunEvent(t, e!), emptyTimeline("run"));
    expect(timeline.taint).toEqual(["web:news.example", "agent:atlas", "email:ops@example.com"]);
  });
});
