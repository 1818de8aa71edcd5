/** What the telemetry setting's route answers with: the browser parses with this, the route is type-checked against it. */
import { z } from "zod/mini";

/** `exportContents`: spans carry message contents; `endpointConfigured`: the operator set a collector, so anything is exported at all. */
export const telemetrySettingsSchema = z.object({ exportContents: z.boolean(), endpointConfigured: z.boolean() });
export type TelemetrySettings = z.infer<typeof telemetrySettingsSchema>;
