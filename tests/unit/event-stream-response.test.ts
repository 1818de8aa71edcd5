import { describe, expect, it } from "vitest";
import { eventStreamResponse, type SseItem } from "@/lib/http/sse";

const decoder = new TextDecoder();

async function chunksOf(response: Response): Promise<string[]> {
  const reader = response.body!.getReader();
  const chunks: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value));
  }
}

const event = (n: number): SseItem => ({ kind: "event", id: n, event: "text", data: { n } });

describe("eventStreamResponse", () => {
  it("sends the events that are ready together as one chunk, and a later event in its own, all in order", async () => {
    let release!: () => void;
    const later = new Promise<void>((resolve) => (release = resolve));
    async function* items(): AsyncGenerator<SseItem> {
      yield event(1);
      yield event(2);
      yield event(3);
      await later;
      yield event(4);
    }
    const response = eventStreamResponse(items());
    const reading = chunksOf(response);
    setTimeout(release, 30);
    const chunks = await reading;
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toBe(
      "retry: 2000\n\n" +
        'id: 1\nevent: text\ndata: {"n":1}\n\n' +
        'id: 2\nevent: text\ndata: {"n":2}\n\n' +
        'id: 3\nevent: text\ndata: {"n":3}\n\n',
    );
    expect(chunks[1]).toBe('id: 4\nevent: text\ndata: {"n":4}\n\n');
  });

  it("still sends what it gathered when the items fail, then the error frame, and closes", async () => {
    async function* items(): AsyncGenerator<SseItem> {
      yield event(1);
      throw new Error("the journal could not be read");
    }
    const text = (await chunksOf(eventStreamResponse(items()))).join("");
    expect(text).toContain('id: 1\nevent: text\ndata: {"n":1}\n\n');
    expect(text.indexOf("event: stream_error")).toBeGreaterThan(text.indexOf("id: 1"));
  });

  it("ends the stream with the session-ended frame when access is withdrawn", async () => {
    let checks = 0;
    async function* items(): AsyncGenerator<SseItem> {
      yield event(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield event(2);
      yield event(3);
    }
    const text = (
      await chunksOf(
        eventStreamResponse(items(), {
          stillAllowed: Object.assign(async () => (checks += 1) < 2, { everyMs: 0 }),
        }),
      )
    ).join("");
    expect(text).toContain("id: 1\n");
    expect(text).not.toContain("id: 2\n");
    expect(text).toContain('"code":"unauthorized:session"');
  });

  it("ends a quiet stream at the next timed check after access is withdrawn, not at its next item, and lets its items go once their wait is over", async () => {
    let allowed = true;
    let release: () => void = () => undefined;
    let finished = false;
    async function* items(): AsyncGenerator<SseItem> {
      try {
        yield event(1);
        // Nothing more for a long while: as a run's stream between heartbeats.
        await new Promise<void>((resolve) => (release = resolve));
        yield event(2);
      } finally {
        finished = true;
      }
    }
    const response = eventStreamResponse(items(), { stillAllowed: Object.assign(async () => allowed, { everyMs: 40 }) });
    setTimeout(() => (allowed = false), 60);
    // Without the timed check this would wait for an item that never comes (and the test would time out).
    const text = (await chunksOf(response)).join("");
    expect(text).toContain("id: 1\n");
    expect(text).not.toContain("id: 2\n");
    expect(text).toContain('"code":"unauthorized:session"');
    expect(finished).toBe(false);
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(finished).toBe(true);
  });
});
