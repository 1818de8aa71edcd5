import { describe, expect, it } from "vitest";
import { runOfAnswer, runStreamKey } from "@/components/chat/use-run";
import { followEventStream, type StreamMessage } from "@/lib/client/event-stream";
import { isAppError } from "@/lib/errors";

const RUN = "0f5c6a2e-8d7b-4c1a-9e3f-2b1d4a6c8e90";
const sse = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/event-stream", ...headers } });

/** Follows the run's stream as the chat page does; `requests` counts the requests made instead of the handed stream. */
async function follow(workspace: string, runId: string) {
  const messages: StreamMessage[] = [];
  let requests = 0;
  await followEventStream({
    url: () => `/api/runs/${runId}/events`,
    handedOver: runStreamKey(workspace, runId),
    signal: AbortSignal.timeout(2_000),
    maxAttempts: 0,
    fetch: async () => {
      requests += 1;
      throw new Error("offline");
    },
    onMessage: (message) => (messages.push(message), message.event === "run_completed" ? "stop" : undefined),
  });
  return { messages, requests };
}

describe("the run a chat message's answer started", () => {
  it("a streamed answer names the run in its header and is handed to the run's follower, which makes no request", async () => {
    const answer = sse(`id: 1\nevent: run_started\ndata: {}\n\nid: 2\nevent: run_completed\ndata: {}\n\n`, { "clawdeck-run-id": RUN });
    expect(await runOfAnswer("acme", answer)).toEqual({ runId: RUN });
    const { messages, requests } = await follow("acme", RUN);
    expect(messages.map((m) => [m.id, m.event])).toEqual([
      ["1", "run_started"],
      ["2", "run_completed"],
    ]);
    expect(requests).toBe(0);
  });

  it("an answer that is not a stream (202 { runId }) names the run in its body, and the follower asks for the stream itself", async () => {
    const answer = new Response(JSON.stringify({ runId: RUN }), { status: 202, headers: { "content-type": "application/json" } });
    expect(await runOfAnswer("acme", answer)).toEqual({ runId: RUN });
    const { requests } = await follow("acme", RUN);
    expect(requests).toBe(1);
  });

  it("an answer that names no run is refused as a broken contract, and its stream is closed", async () => {
    const answer = sse("id: 1\nevent: run_started\ndata: {}\n\n");
    const error = await runOfAnswer("acme", answer).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe("internal:contract");
    // Cancelled: nothing is left to read.
    await expect(answer.text()).rejects.toThrow();
  });
});
