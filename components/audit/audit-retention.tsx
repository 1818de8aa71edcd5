"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { auditRetentionSchema } from "@/lib/audit-log/audit-schemas";
import { can } from "@/lib/access/capabilities";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { toast } from "../ui/toaster";

const retentionKey = (slug: string) => ["audit-retention", slug] as const;

/** The choices offered, in days, with how each reads. */
const choices: [number, string][] = [
  [30, "30 days"],
  [90, "90 days"],
  [180, "6 months"],
  [365, "1 year"],
  [730, "2 years"],
  [1095, "3 years"],
  [2555, "7 years"],
  [3650, "10 years"],
];

const wordsFor = (days: number) => choices.find(([d]) => d === days)?.[1] ?? `${days} days`;

/** How long the audit log keeps entries: owners choose, managers read it. */
export function AuditRetention() {
  const api = useApi();
  const { slug, role } = useWorkspace();
  const queryClient = useQueryClient();
  const retention = useQuery({ queryKey: retentionKey(slug), queryFn: () => api("/api/audit/retention", { schema: auditRetentionSchema }) });
  const save = useMutation({
    mutationFn: (days: number) => api("/api/audit/retention", { method: "PUT", body: { days }, schema: auditRetentionSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(retentionKey(slug), saved);
      toast.success(`The audit log now keeps entries for ${wordsFor(saved.days)}.`);
    },
  });
  const days = retention.data?.days;
  if (retention.isError) return <ErrorNotice error={retention.error} fallback="The retention could not be loaded." />;
  if (days === undefined) return null;
  return (
    <section className="card flex flex-wrap items-center gap-x-3 gap-y-2 p-4 text-sm" aria-label="How long entries are kept">
      {can(role, "audit.retention") ? (
        <label className="flex flex-wrap items-center gap-2">
          Keep entries for
          <select className="input w-auto" value={days} disabled={save.isPending} onChange={(e) => save.mutate(Number(e.target.value))}>
            {(choices.some(([d]) => d === days) ? choices : [...choices, [days, wordsFor(days)] as [number, string]]).map(([d, words]) => (
              <option key={d} value={d}>
                {words}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p>Entries are kept for {wordsFor(days)} (owners choose how long).</p>
      )}
      <p className="text-xs text-slate-600">Older entries are removed within the hour, and the removal is itself recorded.</p>
      {save.isError ? <ErrorNotice error={save.error} fallback="The retention could not be saved." /> : null}
    </section>
  );
}
