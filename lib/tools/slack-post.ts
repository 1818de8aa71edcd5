import { z } from "zod";
import { connectionProviders, providerBaseUrl } from "../connections/connections";
import { outboxMessages } from "../db/schema";
import { FetchFailedError, FetchHeaderError, FetchRefusedError, FetchTimeoutError, safeFetch } from "../net/safe-fetch";
import { ToolError, type ToolDefinition } from "./types";

const slackInput = z.object({
  channel: z
    .string()
    .trim()
    .regex(/^#?[a-z0-9_.-]{1,80}$/i, "a channel name like #general")
    .transform((v) => (v.startsWith("#") ? v.toLowerCase() : `#${v.toLowerCase()}`)),
  text: z.string().trim().min(1).max(4000),
});

export interface SlackPostOutput {
  delivered: "slack" | "outbox";
  channel: string;
  ts?: string;
  outboxId?: string;
  summary: string;
}

/**
 * Posts to Slack with the workspace's connection. The token is read on the
 * server at call time and never enters the model's context or the output.
 * Without a connection the message goes to the local outbox instead.
 */
export const slackPostTool: ToolDefinition<z.infer<typeof slackInput>, SlackPostOutput> = {
  name: "slack.post",
  description: "Post a message to a Slack channel of the team. This sends outside the workspace, so it needs approval.",
  input: slackInput,
  effects: ["sends_externally"],
  taint: () => null,
  // Every post goes through the workspace's one Slack connection (or its outbox).
  destination: () => "slack",
  preview: (input) => ({
    title: "Post to Slack",
    fields: [
      { label: "Channel", value: input.channel },
      { label: "Destination", value: `${input.channel} on ${new URL(providerBaseUrl("slack")).host}` },
      // Whether the workspace is connected is read when the post runs, not when it is asked for.
      { label: "Without a Slack connection", value: "kept in the Outbox, not sent" },
    ],
    body: input.text,
  }),
  timeoutMs: 15_000,
  async execute(ctx, input) {
    const connection = await ctx.credential("slack");
    if (!connection) {
      const [row] = await ctx.db
        .insert(outboxMessages)
        .values({ workspaceId: ctx.workspaceId, agentId: ctx.agentId, runId: ctx.runId, stepId: ctx.stepId, service: "slack", destination: input.channel, body: input.text })
        .returning({ id: outboxMessages.id });
      return {
        delivered: "outbox",
        channel: input.channel,
        outboxId: row!.id,
        summary: `No Slack connection is set up, so the message to ${input.channel} was kept in the Outbox (not sent outside).`,
      };
    }
    // A token saved before tokens were checked may not have the shape: refuse it without quoting it.
    if (!connectionProviders.slack.secretPattern.test(connection.secret)) {
      throw new ToolError("The Slack connection's token is not a valid bot token. A manager must save it again under Settings → Connections.");
    }
    // The connection's own `baseUrl` is ignored: the token only ever goes to the operator's Slack address.
    const url = `${providerBaseUrl("slack")}/api/chat.postMessage`;
    let response;
    try {
      response = await safeFetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${connection.secret}`, "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ channel: input.channel, text: input.text }),
        allow: ctx.fetchAllow,
        maxRedirects: 0,
        maxBytes: 64 * 1024,
        signal: ctx.signal,
      });
    } catch (error) {
      if (error instanceof FetchHeaderError) throw new ToolError("The Slack token cannot be sent in a request header. A manager must save it again.");
      if (error instanceof FetchRefusedError) throw new ToolError(`Slack could not be reached: ${error.message}`, { refused: true });
      if (error instanceof FetchTimeoutError || error instanceof FetchFailedError) throw new ToolError(`Slack could not be reached: ${error.message}`);
      throw error;
    }
    let body: { ok?: boolean; error?: string; ts?: string } = {};
    try {
      body = JSON.parse(response.body) as typeof body;
    } catch {
      // Not JSON: the status below says what happened.
    }
    if (response.status < 200 || response.status >= 300 || !body.ok) {
      throw new ToolError(`Slack refused the message: ${typeof body.error === "string" ? body.error.slice(0, 200) : `HTTP ${response.status}`}`);
    }
    return { delivered: "slack", channel: input.channel, ts: body.ts, summary: `Posted to ${input.channel} on Slack.` };
  },
};
