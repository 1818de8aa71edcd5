import { and, asc, eq, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, agents, approvals, messages, runEvents, sessions, type Approval } from "../db/schema";
import { AppError } from "../errors";
import type { EventBus } from "./bus";
import { appendRunEvents, insertRunEvents, LEASE_SECONDS, notifyRun } from "./journal";
import { recordRunFinished } from "../feed/feed";

export const activeStates = ["queued", "running"] as const;

/**
 * Stores the user's message, the (empty) reply row and the run, all at once:
 * the reply exists from the start so steps attach to it while it streams.
 * The run is claimed by `owner` with a lease it must keep renewing.
 */
export async function createChatRun(
  db: Db,
  input: { workspaceId: string; sessionId: string; userId: string; text: string; owner: string },
): Promise<{ runId: string; userMessageId: string; replyMessageId: string }> {
  return db.transaction(async (tx) => {
    const [session] = await tx
      .select({ id: sessions.id, agentId: sessions.agentId, model: agents.model, status: agents.status, handle: agents.handle })
      .from(sessions)
      .innerJoin(agents, eq(agents.id, sessions.agentId))
      .where(and(eq(sessions.id, input.sessionId), eq(sessions.workspaceId, input.workspaceId)))
      .for("update", { of: sessions });
    if (!session) throw new AppError("not_found:session");
    if (session.status === "paused") throw new AppError("conflict:agent", `@${session.handle} is paused.`);
    const [busy] = await tx
      .select({ id: agentRuns.id })
      .from(agentRuns)
      .where(and(eq(agentRuns.sessionId, input.sessionId), inArray(agentRuns.state, [...activeStates, "suspended"])))
      .limit(1);
    if (busy) throw new AppError("conflict:run", "The agent is still answering. Wait for it, or stop it first.", { details: { runId: busy.id } });

    const now = new Date();
    const [userMessage] = await tx
      .insert(messages)
      .values({ workspaceId: input.workspaceId, sessionId: input.sessionId, role: "user", content: input.text, userId: input.userId, createdAt: now })
      .returning({ id: messages.id });
    const [reply] = await tx
      .insert(messages)
      .values({ workspaceId: input.workspaceId, sessionId: input.sessionId, role: "assistant", content: "", createdAt: new Date(now.getTime() + 1) })
      .returning({ id: messages.id });
    const [run] = await tx
      .insert(agentRuns)
      .values({
        workspaceId: input.workspaceId,
        agentId: session.agentId,
        sessionId: input.sessionId,
        userId: input.userId,
        trigger: "chat",
        userMessageId: userMessage!.id,
        replyMessageId: reply!.id,
        model: session.model,
        state: "running",
        claimedBy: input.owner,
        leaseExpiresAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
        startedAt: now,
      })
      .returning({ id: agentRuns.id });
    await tx.update(messages).set({ runId: run!.id }).where(inArray(messages.id, [userMessage!.id, reply!.id]));
    await tx.update(sessions).set({ updatedAt: now }).where(eq(sessions.id, input.sessionId));
    return { runId: run!.id, userMessageId: userMessage!.id, replyMessageId: reply!.id };
  });
}

export async function getRun(db: Db, workspaceId: string, runId: string) {
  const [run] = await db
    .select()
    .from(agentRuns)
    .where(and(eq(agentRuns.id, runId), eq(agentRuns.workspaceId, workspaceId)));
  if (!run) throw new AppError("not_found:run");
  return run;
}

/** The reply text as the journal has it: every text delta, in order. */
export async function journalText(db: Db, runId: string): Promise<string> {
  const rows = await db
    .select({ payload: runEvents.payload })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), eq(runEvents.type, "text")))
    .orderBy(runEvents.seq);
  return rows.map((r) => String((r.payload as { delta?: unknown }).delta ?? "")).join("");
}

/**
 * Marks a run failed (or cancelled) from outside its driver, once: the
 * conditional update picks the runs that are still in one of `from`.
 */
export async function endRunFromOutside(
  db: Db,
  bus: EventBus,
  runId: string,
  options: { from: readonly ("queued" | "running" | "suspended")[]; to: "failed" | "cancelled"; code: string; message: string; staleOnly?: boolean },
): Promise<boolean> {
  const [ended] = await db
    .update(agentRuns)
    .set({
      state: options.to,
      error: options.to === "failed" ? options.message : null,
      errorCode: options.to === "failed" ? options.code : null,
      claimedBy: null,
      leaseExpiresAt: null,
      finishedAt: new Date(),
    })
    .where(
      and(
        eq(agentRuns.id, runId),
        inArray(agentRuns.state, [...options.from]),
        options.staleOnly ? lt(agentRuns.leaseExpiresAt, sql`now()`) : undefined,
      ),
    )
    .returning();
  if (!ended) return false;
  // Keep the partial reply the journal holds, so the person sees what was said before it stopped.
  if (ended.replyMessageId) await db.update(messages).set({ content: await journalText(db, runId) }).where(eq(messages.id, ended.replyMessageId));
  await appendRunEvents(db, bus, runId, null, [
    options.to === "failed"
      ? { type: "run_failed", payload: { code: options.code, message: options.message } }
      : { type: "run_cancelled", payload: { reason: options.message } },
  ]);
  const [agent] = await db.select({ handle: agents.handle }).from(agents).where(eq(agents.id, ended.agentId));
  await recordRunFinished({ db, bus }, ended, agent?.handle, options.to, options.to === "failed" ? { code: options.code, message: options.message } : undefined);
  return true;
}

/** Runs whose driving process stopped renewing its lease (it crashed or was killed). */
export async function listOrphanedRuns(db: Db, limit = 50): Promise<string[]> {
  const rows = await db
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(inArray(agentRuns.state, [...activeStates]), lt(agentRuns.leaseExpiresAt, sql`now()`)))
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Claims a suspended run whose approval was decided, for `owner` alone: the
 * run goes back to running under our lease and the approval is marked
 * resumed, in one transaction. Of racing resumers (a double click, the
 * sweeper, another instance) exactly one gets the approval; the rest get null.
 */
export async function claimResume(db: Db, bus: EventBus, runId: string, owner: string): Promise<Approval | null> {
  const claimed = await db.transaction(async (tx) => {
    const [approval] = await tx
      .select()
      .from(approvals)
      .where(and(eq(approvals.runId, runId), ne(approvals.status, "pending"), isNull(approvals.resumedAt)))
      .orderBy(asc(approvals.decidedAt))
      .limit(1)
      // Wait for, rather than skip, a row locked by a decision still in flight.
      .for("update");
    if (!approval) return null;
    const [run] = await tx
      .update(agentRuns)
      .set({ state: "running", claimedBy: owner, leaseExpiresAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.state, "suspended")))
      .returning({ id: agentRuns.id });
    if (!run) return null;
    await tx.update(approvals).set({ resumedAt: new Date() }).where(eq(approvals.id, approval.id));
    const seq = await insertRunEvents(tx, runId, owner, [{ type: "run_resumed", payload: { approvalId: approval.id } }]);
    return { approval, seq };
  });
  if (!claimed) return null;
  await notifyRun(bus, runId, claimed.seq);
  return claimed.approval;
}
