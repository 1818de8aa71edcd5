import { z } from "zod";
import { outboxMessages } from "../db/schema";
import { ToolError, type ToolDefinition } from "./types";

export const SLACK_DEFAULT_BASE_URL = "https://slack.com/api";

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
  preview: (input) => ({ title: "Post to Slack", fields: [{ label: "Channel", value: input.channel }], body: input.text }),
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
    const baseUrl = (connection.config.baseUrl || SLACK_DEFAULT_BASE_URL).replace(/\/+$/, "");
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/chat.postMessage`, {
        method: "POST",
        headers: { authorization: `Bearer ${connection.secret}`, "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ channel: input.channel, text: input.text }),
        signal: ctx.signal,
      });
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      throw new ToolError(`Slack could not be reached: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as { ok?: boolean; error?: string; ts?: string; channel?: string };
    if (!response.ok || !body.ok) throw new ToolError(`Slack refused the message: ${body.error ?? `HTTP ${response.status}`}`);
    return { delivered: "slack", channel: input.channel, ts: body.ts, summary: `Posted to ${input.channel} on Slack.` };
  },
};
