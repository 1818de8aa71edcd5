import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/** The official OTLP definitions (opentelemetry-proto, Apache-2.0), as the collector reads them. */
const PROTO_DIR = path.join(import.meta.dirname, "otlp");
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
const ExportTraceServiceRequest = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
const ExportTraceServiceResponse = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");

/** A span as it arrived, with its ids in hex and its attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value?: AnyValue };

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return null;
}

const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString("hex");
const nanosToMs = (nanos: string) => Number(BigInt(nanos) / 1_000_000n);

/** Decodes one OTLP/HTTP protobuf export body into its spans. */
export function decodeSpans(body: Buffer): ReceivedSpan[] {
  const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, defaults: true }) as {
    resourceSpans: { resource?: { attributes?: KeyValue[] }; scopeSpans: { scope?: { name: string }; spans: Record<string, never>[] }[] }[];
  };
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s: Record<string, unknown>) => ({
        service: String(attributesOf(rs.resource?.attributes)["service.name"]),
        scope: ss.scope?.name ?? "",
        traceId: hex(s.traceId as Uint8Array),
        spanId: hex(s.spanId as Uint8Array),
        parentSpanId: hex(s.parentSpanId as Uint8Array),
        name: s.name as string,
        kind: s.kind as number,
        startMs: nanosToMs(s.startTimeUnixNano as string),
        endMs: nanosToMs(s.endTimeUnixNano as string),
        attributes: attributesOf(s.attributes as KeyValue[]),
        status: { code: (s.status as { code?: number } | undefined)?.code ?? 0, message: (s.status as { message?: string } | undefined)?.message ?? "" },
      })),
    ),
  );
}

/**
 * A local OTLP/HTTP collector: takes `POST /v1/traces` with a protobuf body, decodes it with the official
 * definitions and keeps the spans and the requests' headers. `hold`: answer nothing, as a collector that hangs.
 */
export async function startOtlpReceiver(options: { hold?: boolean } = {}) {
  const spans: ReceivedSpan[] = [];
  const requests: { path: string; contentType: string; headers: http.IncomingHttpHeaders }[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", headers: req.headers });
      if (options.hold) {
        held.add(res);
        return;
      }
      if (req.method !== "POST" || req.url !== "/v1/traces" || req.headers["content-type"] !== "application/x-protobuf") {
        res.writeHead(404).end();
        return;
      }
      spans.push(...decodeSpans(Buffer.concat(chunks)));
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end(ExportTraceServiceResponse.encode({}).finish());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    /** Requests taken and not answered (only when holding). */
    unanswered: () => held.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address where nothing listens: a port taken from the system and let go again. */
export async function closedPortUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
