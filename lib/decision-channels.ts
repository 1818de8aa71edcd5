/** Where a person decided a request: the inbox, the chat that asked, or the run's page. */
export const decisionChannels = ["inbox", "chat", "run"] as const;
export type DecisionChannel = (typeof decisionChannels)[number];

/** The channel as a person reads it after "Approved by Rita": "in the inbox". */
export const decisionChannelWords: Record<DecisionChannel, string> = {
  inbox: "in the inbox",
  chat: "from the chat",
  run: "from the run's page",
};
