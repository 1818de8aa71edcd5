"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { settingsKeys } from "@/lib/client/query-keys";
import { telemetrySettingsSchema } from "@/lib/telemetry/telemetry-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { toast } from "../ui/toaster";

/**
 * Traces in the team's own observability tool: whether the server exports any (the operator's variable), and
 * whether the workspace's spans carry message contents (a manager's choice).
 */
export function TelemetryForm({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingsKeys.telemetry(slug), queryFn: () => api("/api/workspace/telemetry", { schema: telemetrySettingsSchema }) });
  const save = useMutation({
    mutationFn: (exportContents: boolean) => api("/api/workspace/telemetry", { method: "PUT", body: { exportContents }, schema: telemetrySettingsSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(settingsKeys.telemetry(slug), saved);
      toast.success(saved.exportContents ? "Traces now carry message contents." : "Traces no longer carry message contents.");
    },
  });

  return (
    <section className="card max-w-xl space-y-3 p-4" aria-label="Traces">
      <h2 className="text-sm font-semibold">Traces (OpenTelemetry)</h2>
      {query.isError ? <ErrorNotice error={query.error} fallback="Could not read the trace settings." /> : null}
      {!query.data ? (
        query.isError ? null : <p className="text-sm text-slate-600">Loading…</p>
      ) : !query.data.endpointConfigured ? (
        <p className="text-sm text-slate-700">
          Nothing is exported. Runs are sent as traces to your observability tool (Langfuse, Phoenix, Datadog, Grafana Tempo) once whoever runs this server sets{" "}
          <code>OTEL_EXPORTER_OTLP_ENDPOINT</code> (see the README).
        </p>
      ) : (
        <>
          <p className="text-sm text-slate-700">
            Every run is exported as a trace: its model calls with their tokens, and its tool calls with how long they waited for a reviewer. Without contents, no prompt,
            reply, tool input or tool output leaves the server.
          </p>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              className="mt-0.5 size-4 accent-indigo-600"
              checked={query.data.exportContents}
              disabled={!canEdit || save.isPending}
              onChange={(e) => save.mutate(e.target.checked)}
            />
            <span>
              Include message contents
              <span className="block text-xs text-slate-600">
                Prompts, replies, tool inputs and tool outputs go to the collector with each span. Anyone who can read your traces there reads them.
              </span>
            </span>
          </label>
          {save.isError ? <ErrorNotice error={save.error} fallback="Could not save the choice." /> : null}
          {canEdit ? null : <p className="text-xs text-slate-500">Managers and owners change this.</p>}
        </>
      )}
    </section>
  );
}
