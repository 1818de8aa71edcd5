/**
 * The one owner of run state (this folder). Every write of `agent_runs` and `steps` (and
 * of the approvals a run asks for or abandons) goes through these modules, so
 * the lifecycle holds by construction:
 *
 * - a run is created only for an agent that is not paused, and carries the
 *   person on whose behalf it acts and the agents it came through;
 * - a paused agent's suspended run is not resumed, nor its orphan carried
 *   on, until the agent is resumed: a decision on it is kept meanwhile;
 * - only the process holding the claim writes while the run is running;
 * - a terminal event closes the journal (`journal_closed_at`): nothing is
 *   journaled after it, whoever tries;
 * - ending a run from outside withdraws its pending approvals, so no decision
 *   can mint a grant for a run that stopped.
 *
 * Each function is one transaction (or one conditional statement) and is
 * retried on transient database errors.
 */
export * from "./start";
export * from "./steps";
export * from "./suspend";
export * from "./end";
