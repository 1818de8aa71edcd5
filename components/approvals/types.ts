export interface ApprovalItem {
  id: string;
  /** Run, step and chat are null for viewers who may not open the run behind the approval. */
  runId: string | null;
  stepId: string | null;
  category: string;
  tool: string;
  callId: string;
  input: Record<string, unknown>;
  editedInput: Record<string, unknown> | null;
  preview: { title: string; fields: { label: string; value: string }[]; body?: string };
  taintSources: { source: string; stepId: string | null }[];
  status: "pending" | "approved" | "rejected" | "expired";
  reason: string | null;
  expiresAt: string;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  requestedBy: string | null;
  requestedByUserId: string | null;
  sessionId: string | null;
  canOpenRun: boolean;
  agent: { id: string; handle: string; name: string; color: string };
}

export const categoryLabels: Record<string, string> = {
  external_send: "Sends outside",
  data_write: "Changes data",
  code_exec: "Runs code",
  spend: "Spends money",
  tainted_egress: "Passes on untrusted content",
};

/** "in 23 h 12 min", "in 4 min", "expired". */
export function timeLeft(expiresAt: string, now: number): string {
  const ms = new Date(expiresAt).getTime() - now;
  if (ms <= 0) return "expired";
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `${minutes} min left`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min left`;
}
