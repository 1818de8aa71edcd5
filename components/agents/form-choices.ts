/** What the agent form offers, given the server's configuration. */
export interface ModelChoice {
  spec: string;
  label: string;
}

export interface ToolChoice {
  name: string;
  description: string;
}

/** What each tool lets an agent do, said for people (the registry's descriptions are written for models). */
export const toolBlurbs: Record<string, string> = {
  "http.fetch": "Reads web pages. What it reads is untrusted: passing it on then needs a person.",
  "chat.send": "Messages another agent or posts in a room; the recipients answer.",
  "slack.post": "Posts to a Slack channel, after a reviewer approves.",
  "memory.remember": "Keeps notes in its own memory.",
  "memory.recall": "Searches its own memory.",
};
