import { describe, expect, it } from "vitest";
import { describeFeedItem } from "../../components/feed/describe-item";
import { foldRuns } from "../../components/feed/feed-items";
import type { FeedItem } from "../../lib/feed/feed-schemas";

const RUN = "00000000-0000-4000-8000-000000000001";
const OTHER = "00000000-0000-4000-8000-000000000002";
const item = (seq: number, kind: string, runId: string | null, payload: Record<string, unknown>, at: string): FeedItem => ({
  seq,
  kind,
  agentId: null,
  targetAgentId: null,
  roomId: null,
  threadId: null,
  runId,
  stepId: null,
  approvalId: null,
  payload,
  at,
});

describe("a run's start and end on one line", () => {
  const items = [
    item(1, "run_started", RUN, { agent: "scout", trigger: "room_post", hop: 1 }, "2026-12-07T10:00:00.000Z"),
    item(2, "room_post", null, { room: "ops", fromUser: "Rita", text: "deploy" }, "2026-12-07T10:00:00.500Z"),
    item(3, "run_started", OTHER, { agent: "atlas", trigger: "chat" }, "2026-12-07T10:00:01.000Z"),
    item(4, "run_finished", RUN, { agent: "scout", state: "succeeded" }, "2026-12-07T10:00:02.500Z"),
  ];

  it("folds a finished run's start into its end; a run still going keeps its start", () => {
    const { shown, startOf } = foldRuns(items);
    expect(shown.map((i) => i.seq)).toEqual([2, 3, 4]);
    expect(startOf.get(4)?.seq).toBe(1);
    expect(describeFeedItem(shown[2]!, { started: startOf.get(4) })).toMatchObject({
      headline: "@scout · run started by a post in a room, succeeded after 2.5 s",
      tags: ["hop 1"],
      tone: "ok",
    });
  });

  it("does not fold an end that came after the point the reader paused at, nor an end without its start", () => {
    expect(foldRuns(items, 3).shown.map((i) => i.seq)).toEqual([1, 2, 3, 4]);
    expect(foldRuns(items.slice(1)).shown.map((i) => i.seq)).toEqual([2, 3, 4]);
    expect(describeFeedItem(items[3]!).headline).toBe("@scout · run succeeded");
  });
});
