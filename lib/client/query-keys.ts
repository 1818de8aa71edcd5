/**
 * Every TanStack Query key of the app, by what it caches. Each starts with
 * what it is and the workspace slug, so a prefix (`approvalKeys.all(slug)`)
 * invalidates a family and two workspaces never share an entry. A server
 * prefetch and the browser's `useQuery` name the same key here, so the page
 * starts with the data the server read.
 */

export const agentKeys = {
  list: (slug: string) => ["agents", slug] as const,
  detail: (slug: string, id: string) => ["agent", slug, id] as const,
  computer: (slug: string, id: string) => ["agent-computer", slug, id] as const,
  files: (slug: string, id: string, folder: string) => ["agent-computer", slug, id, "files", folder] as const,
  file: (slug: string, id: string, path: string, version: number | null) => ["agent-computer", slug, id, "file", path, version] as const,
  history: (slug: string, id: string, path: string) => ["agent-computer", slug, id, "history", path] as const,
};

export const chatKeys = {
  sessions: (slug: string) => ["chat-sessions", slug] as const,
  sessionSearch: (slug: string, words: string) => ["chat-sessions", slug, "search", words] as const,
  session: (slug: string, sessionId: string) => ["chat-session", slug, sessionId] as const,
  run: (slug: string, runId: string) => ["chat-run", slug, runId] as const,
};

export const roomKeys = {
  list: (slug: string) => ["rooms", slug] as const,
  detail: (slug: string, id: string) => ["room", slug, id] as const,
};

export const missionKeys = {
  crews: (slug: string) => ["crews", slug] as const,
  crew: (slug: string, id: string) => ["crew", slug, id] as const,
  list: (slug: string) => ["missions", slug] as const,
  detail: (slug: string, id: string) => ["mission", slug, id] as const,
  comparison: (slug: string, id: string) => ["comparison", slug, id] as const,
};

export const approvalKeys = {
  all: (slug: string) => ["approvals", slug] as const,
  /** Every approval the viewer can see, read for the filters' choices. */
  facets: (slug: string) => ["approvals", slug, "facets"] as const,
  /** `search`: the API query string of the pending list. */
  pending: (slug: string, search: string) => ["approvals", slug, "pending", search] as const,
  one: (slug: string, id: string) => ["approvals", slug, "one", id] as const,
  history: (slug: string) => ["approvals", slug, "history"] as const,
  historyFiltered: (slug: string, filters: object) => ["approvals", slug, "history", filters] as const,
  /** A team of one: whether the owner approves their own requests now. */
  ownWhileAlone: (slug: string) => ["approvals", slug, "own-while-alone"] as const,
};

export const feedKeys = {
  /** The newest items for a filter (`filterQuery(filter).toString()`), as the feed's first page. */
  page: (slug: string, filter: string, limit: number) => ["feed-page", slug, filter, limit] as const,
  matrix: (slug: string) => ["feed-matrix", slug] as const,
  matrixRange: (slug: string, range: string) => ["feed-matrix", slug, range] as const,
};

export const runKeys = {
  summary: (slug: string, runId: string) => ["run-summary", slug, runId] as const,
};

export const usageKeys = {
  summary: (slug: string, timeZone: string) => ["usage-summary", slug, timeZone] as const,
  report: (slug: string, choice: unknown, group: string, timeZone: string) => ["usage-report", slug, choice, group, timeZone] as const,
  reconciliation: (slug: string) => ["reconciliation", slug] as const,
  reviews: (slug: string, from: string, to: string) => ["usage-reviews", slug, from, to] as const,
};

export const billingKeys = {
  budgets: (slug: string) => ["budgets", slug] as const,
  prices: (slug: string) => ["prices", slug] as const,
};

export const settingsKeys = {
  governor: (slug: string) => ["governor", slug] as const,
  policy: (slug: string) => ["policy", slug] as const,
  connections: (slug: string) => ["connections", slug] as const,
  credentials: (slug: string) => ["credentials", slug] as const,
  members: (slug: string) => ["members", slug] as const,
  invitations: (slug: string) => ["invitations", slug] as const,
  notifications: (slug: string) => ["notifications", slug] as const,
  deliveries: (slug: string) => ["notifications", slug, "deliveries"] as const,
  escalation: (slug: string) => ["escalation", slug] as const,
  telemetry: (slug: string) => ["telemetry", slug] as const,
  pushBrowsers: () => ["push-browsers"] as const,
  slackLink: (slug: string) => ["slack-link", slug] as const,
};

export const doorKeys = {
  all: (slug: string) => ["door-tokens", slug] as const,
  /** One agent's tokens, or every token of the workspace without an agent. */
  tokens: (slug: string, agentId: string | undefined) => ["door-tokens", slug, agentId ?? "all"] as const,
};
