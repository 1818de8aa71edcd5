/** What each audited action says, after the name of who did it ("Rita approved a request"). The browser imports this. */
export const auditActionWords: Record<string, string> = {
  "agent.created": "made an agent",
  "agent.updated": "changed an agent",
  "agent.paused": "paused an agent",
  "agent.resumed": "resumed an agent",
  "agent_file.restored": "restored a file in an agent's computer",
  "approval.approved": "approved a request",
  "approval.rejected": "rejected a request",
  "approval.expired": "let a request expire",
  "approval.withdrawn": "withdrew a request",
  "approvals.own_ended": "ended approving their own requests",
  "approvals.own_started": "started approving their own requests while alone",
  "auth.sign_in_locked": "locked an account after wrong passwords",
  "budget.cap_raised": "raised a spending cap",
  "budgets.updated": "changed the budgets",
  "connection.deleted": "removed a connection",
  "connection.saved": "saved a connection",
  "credential.created": "made a credential",
  "credential.deleted": "removed a credential",
  "crew.created": "made a crew",
  "crew.updated": "changed a crew",
  "door_token.created": "made a door token",
  "door_token.revoked": "revoked a door token",
  "governor.updated": "changed the governor",
  "installation.bootstrapped": "set up this server",
  "invitation.accepted": "joined by invitation",
  "invitation.created": "invited someone",
  "invitation.revoked": "revoked an invitation",
  "member.removed": "removed someone",
  "member.role_changed": "changed someone's role",
  "notifications.escalation_set": "changed how requests are passed on",
  "policy.updated": "changed the policy",
  "prices.updated": "changed the prices",
  "room.created": "made a room",
  "slack.decision_refused": "was refused a decision in Slack",
  "slack.linked": "linked a Slack account",
  "slack.unlinked": "unlinked a Slack account",
  "slack.replay_refused": "refused a repeated Slack request",
  "slack.request_refused": "refused an unsigned Slack request",
  "user.password_changed": "changed their password",
  "user.password_reset": "had their password reset",
  "webhook.created": "made a webhook",
  "webhook.deleted": "removed a webhook",
  "webhook.redelivered": "sent a webhook message again",
  "workspace.created": "made the workspace",
  "workspace.renamed": "renamed the workspace",
  "workspace.time_zone_changed": "changed the workspace's time zone",
};

/** The action in words; an action without words yet is named as it is stored. */
export function auditActionSentence(action: string): string {
  return auditActionWords[action] ?? `did ${action}`;
}

/** Who did it, when no person is named: the system, an agent, the governor. */
export const auditActorKindWords: Record<string, string> = { system: "Clawdeck", agent: "An agent", governor: "The governor", user: "Someone no longer here" };
