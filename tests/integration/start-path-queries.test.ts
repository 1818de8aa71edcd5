import { describe, expect, it } from "vitest";
import { GET as eventsRoute } from "../../app/api/runs/[id]/events/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { POST as createSessionRoute } from "../../app/api/sessions/route";
import { recordQueries } from "../../lib/db/query-count";
import { demoOwner } from "../support/fixtures";
import { waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { readFrames } from "../support/sse";

/** Statements sent before the response is handed back (later work of the run is not part of the answer). */
async function queriesOf(fn: () => Promise<Response>) {
  const { result, queries } = await recordQueries(fn);
  return { res: result, queries };
}

describe("queries on the start path of a chat", () => {
  const server = useTestServer();

  it("counts the statements of a chat message and of opening its run's event stream", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const created = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentHandle: "scout" } }));
    const sessionId = (await created.json()).id as string;

    const post = () =>
      queriesOf(() =>
        postMessageRoute(
          jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, workspace: "demo", body: { text: "hello" } }),
          params({ id: sessionId }),
        ),
      );
    // The first request naming the workspace records it as the one opened last; later ones only read.
    const first = await post();
    expect(first.res.status).toBe(202);
    expect(first.queries.filter((q) => /update "memberships"/.test(q))).toHaveLength(1);
    await waitForRun(s.db, (await first.res.json()).runId);

    const posted = await post();
    expect(posted.res.status).toBe(202);
    const { runId } = await posted.res.json();
    await waitForRun(s.db, runId);
    // Session, user and membership: one statement, and no write when the workspace is already the last opened.
    expect(posted.queries.filter((q) => /auth_sessions|memberships/.test(q))).toHaveLength(1);
    // The chat's own statements: the session with its membership, the run-start limiter, then the chat run's one
    // statement (the chat locked with its agent and checked to be this person's, both messages carrying the run's id,
    // the run, the chat's time and title), which ends the answer's work. (The run itself starts before the answer is
    // sent, so how many of its first reads are recorded depends on timing.)
    const own = posted.queries.slice(0, posted.queries.findIndex((q) => /insert into "agent_runs"/.test(q)) + 1);
    expect(own).toHaveLength(3);
    expect(own.filter((q) => /insert into "messages"/.test(q))).toHaveLength(1);
    expect(own.filter((q) => /update "messages"/.test(q))).toHaveLength(0);
    expect(own.filter((q) => /update "sessions"/.test(q))).toHaveLength(1);
    // No transaction block: the statement is atomic on its own.
    expect(own.filter((q) => /^(begin|commit)/i.test(q.trim()))).toHaveLength(0);

    const opened = await queriesOf(() => eventsRoute(jsonRequest(`/api/runs/${runId}/events?workspace=demo`, { cookie }), params({ id: runId })));
    expect(opened.res.status).toBe(200);
    const frames = await readFrames(opened.res);
    expect(frames.at(-1)?.event).toBe("run_completed");
    // Session with membership, then the journal: the run's access facts are known to the process that started it.
    expect(opened.queries).toHaveLength(2);
    expect(opened.queries.filter((q) => /from "agent_runs"/.test(q))).toHaveLength(0);

    // Asked for as a stream, the answer follows the run from before it is driven: its events come from memory, and the
    // journal is never read (the stream's own statements stop at the chat run's; the journal's writes are the run's).
    const streamed = await recordQueries(async () => {
      const res = await postMessageRoute(
        jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, workspace: "demo", body: { text: "hello again" }, headers: { accept: "text/event-stream" } }),
        params({ id: sessionId }),
      );
      return { res, frames: await readFrames(res) };
    });
    expect(streamed.result.res.status).toBe(200);
    const streamedFrames = streamed.result.frames;
    expect(streamedFrames.map((f) => Number(f.id))).toEqual(streamedFrames.map((_, i) => i + 1));
    expect(streamedFrames.at(-1)?.event).toBe("run_completed");
    expect(streamed.queries.filter((q) => /select .* from "run_events"/s.test(q))).toEqual([]);
    await s.runtime.drain();

    console.log(`POST messages: ${posted.queries.length}\n${posted.queries.join("\n")}`);
    console.log(`GET events: ${opened.queries.length}\n${opened.queries.join("\n")}`);
  });
});
