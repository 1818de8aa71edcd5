import { route } from "@/lib/http/route";
import { telemetrySettingsSchema } from "@/lib/telemetry/telemetry-schemas";
import { getExportContents, setExportContents, telemetryBodySchema } from "@/lib/telemetry/settings";

const readDoc = {
  summary:
    "whether the workspace's OpenTelemetry spans carry message contents (prompts, replies, tool inputs and outputs), and whether the server exports anything at all (`endpointConfigured`: `OTEL_EXPORTER_OTLP_ENDPOINT` is set)",
};

export const GET = route({ doc: readDoc, response: telemetrySettingsSchema }, async ({ db, server, workspace }) => ({
  exportContents: await getExportContents(db, workspace.id),
  endpointConfigured: !!server.env.OTEL_EXPORTER_OTLP_ENDPOINT,
}));

const writeDoc = { summary: "`{exportContents}`: turn message contents in the spans on or off; managers and owners; audited" };

export const PUT = route({ doc: writeDoc, can: "workspace.manage", body: telemetryBodySchema, response: telemetrySettingsSchema }, async ({ db, server, workspace, user, body }) => ({
  exportContents: await setExportContents(db, workspace.id, user.id, body.exportContents),
  endpointConfigured: !!server.env.OTEL_EXPORTER_OTLP_ENDPOINT,
}));
