/** Where a person decided a request: the inbox, the chat that asked, the run's page, a push notification or Slack. */
export const decisionChannels = ["inbox", "chat", "run", "push", "slack"] as const;
export type DecisionChannel = (typeof decisionChannels)[number];

/** The channels a browser may name when it decides through the decision routes (Slack decides only through Slack). */
export const browserDecisionChannels = ["inbox", "chat", "run", "push"] as const;

/** The channel as a person reads it after "Approved by Rita": "in the inbox". */
export const decisionChannelWords: Record<DecisionChannel, string> = {
  inbox: "in the inbox",
  chat: "from the chat",
  run: "from the run's page",
  push: "from a notification",
  slack: "in Slack",
};
