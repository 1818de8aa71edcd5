import { z } from "zod";
import { recordAudit } from "../audit";
import { BROKERED_PROVIDER, hostAllowed } from "../connections/credentials";
import { FetchFailedError, FetchHeaderError, FetchRefusedError, FetchTimeoutError, safeFetch } from "../net/safe-fetch";
import { cleanText, truncate } from "../text";
import { ToolError, type ToolDefinition, type ToolEffect } from "./types";

/**
 * A call to an outside API with one of the workspace's named credentials,
 * attached by the server: the model names the credential, never sees it,
 * and the server sends it only to a host the credential is bound to (and
 * never on through a redirect). Nothing the call returns or throws reaches
 * the journal, the steps or the model with the value in it (the runtime's
 * redactor knows every stored credential). What comes back is untrusted
 * content from that host.
 */

export const HTTP_REQUEST_MAX_TEXT = 20_000;

const input = z.object({
  credential: z.string().trim().toLowerCase().min(1).max(40).describe("The name of one of the workspace's credentials, such as github"),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("GET"),
  url: z.url({ protocol: /^https?$/, error: "url must be an absolute http:// or https:// URL" }),
  body: z.string().max(100_000).optional().describe("The request body (JSON is sent as application/json)"),
});

export interface HttpRequestOutput {
  url: string;
  status: number;
  contentType: string | null;
  text: string;
  truncated: boolean;
  summary: string;
}

const READS: readonly ToolEffect[] = ["reads_external"];
const SENDS: readonly ToolEffect[] = ["reads_external", "sends_externally"];

export const httpRequestTool: ToolDefinition<z.infer<typeof input>, HttpRequestOutput> = {
  name: "http.request",
  description:
    "Call an outside API with one of the workspace's named credentials (for example github). The server attaches the credential; you never see it. It only goes to the hosts it is bound to.",
  input,
  effects: SENDS,
  effectsOf: (call) => (call.method === "GET" ? READS : SENDS),
  timeoutMs: 20_000,
  taint: (_input, output) => `web:${new URL(output.url).hostname}`,
  destination: (call) => {
    try {
      return new URL(call.url).host;
    } catch {
      return null;
    }
  },
  preview: (call) => ({
    title: call.method === "GET" ? "Read from an API with a credential" : "Send to an API with a credential",
    fields: [
      { label: "Credential", value: call.credential },
      { label: "Host", value: (() => { try { return new URL(call.url).host; } catch { return call.url; } })() },
      { label: "Request", value: `${call.method} ${call.url}` },
    ],
    ...(call.body ? { body: truncate(call.body, 4000, "…") } : {}),
  }),
  async execute(ctx, call) {
    const credential = await ctx.credential(BROKERED_PROVIDER, call.credential);
    if (!credential) throw new ToolError(`The workspace has no credential named ${call.credential}. A manager adds credentials under Settings → Connections.`, { refused: true });
    const url = new URL(call.url);
    const hosts = (credential.config.hosts ?? "").split(",").filter(Boolean);
    if (!hostAllowed(hosts, url)) {
      throw new ToolError(`The credential ${call.credential} may only be sent to ${hosts.join(", ")}, not to ${url.host}. Nothing was sent.`, { refused: true });
    }
    // Recorded before the credential leaves the server, so a request that hangs or fails is on the record too.
    await recordAudit(ctx.db, {
      workspaceId: ctx.workspaceId,
      actor: { kind: "agent", id: ctx.agentId },
      action: "credential.used",
      target: { type: "credential", id: call.credential },
      detail: { credential: call.credential, agent: ctx.agentHandle, method: call.method, host: url.host, runId: ctx.runId, stepId: ctx.stepId },
    });
    const header = credential.config.header || "Authorization";
    const scheme = credential.config.scheme ?? "Bearer";
    let response;
    try {
      response = await safeFetch(call.url, {
        method: call.method,
        headers: {
          [header.toLowerCase()]: scheme ? `${scheme} ${credential.secret}` : credential.secret,
          ...(call.body !== undefined ? { "content-type": looksLikeJson(call.body) ? "application/json; charset=utf-8" : "text/plain; charset=utf-8" } : {}),
        },
        body: call.body,
        allow: ctx.fetchAllow,
        // A redirect could lead anywhere: the credential's answer is the first one.
        maxRedirects: 0,
        maxBytes: 512 * 1024,
        signal: ctx.signal,
      });
    } catch (error) {
      if (error instanceof FetchHeaderError) throw new ToolError(`The credential ${call.credential} cannot be sent in a request header. A manager must save it again.`);
      if (error instanceof FetchRefusedError) throw new ToolError(`Refused to call ${url.host}: ${error.message}`, { refused: true });
      if (error instanceof FetchTimeoutError || error instanceof FetchFailedError) throw new ToolError(`Could not reach ${url.host}: ${error.message}`);
      throw error;
    }
    const text = cleanText(response.body);
    const kept = text.slice(0, HTTP_REQUEST_MAX_TEXT);
    return {
      url: response.url,
      status: response.status,
      contentType: response.contentType,
      text: kept,
      truncated: response.truncated || text.length > HTTP_REQUEST_MAX_TEXT,
      summary: `${call.method} ${url.host}${url.pathname} with the credential ${call.credential}: HTTP ${response.status}. It begins: “${truncate(kept.replace(/\s+/g, " ").trim(), 240, "…")}”`,
    };
  },
};

function looksLikeJson(body: string): boolean {
  const first = body.trimStart()[0];
  return first === "{" || first === "[";
}
