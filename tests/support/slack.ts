import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

export interface SlackMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: Record<string, unknown>[];
  /** Every version the message had, the first as posted. */
  versions: { text: string; blocks: Record<string, unknown>[] }[];
}

type Json = Record<string, unknown>;

/**
 * A stand-in for Slack's Web API, on a free port, that checks what Slack checks: the bot token in the Authorization
 * header, a JSON body, and the shape of `chat.postMessage` / `chat.update` (text, blocks Slack accepts, buttons with an
 * action id, a label and at most a value or a url). It answers like Slack (`ok`, `error`), keeps the messages with
 * their versions, and knows some members by email. `env` gains `CLAWDECK_SLACK_BASE_URL` and `CLAWDECK_FETCH_ALLOW`.
 */
export function useSlackStandIn(env: Record<string, string>, token: string) {
  const state = {
    messages: [] as SlackMessage[],
    ephemeral: [] as { channel: string; user: string; text: string }[],
    views: [] as { trigger_id: string; view: Json }[],
    members: new Map<string, string>(),
    calls: [] as string[],
  };
  let counter = 0;
  const fail = (error: string) => ({ ok: false, error });

  function checkBlocks(blocks: unknown): string | null {
    if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) return "invalid_blocks";
    for (const block of blocks as Json[]) {
      if (!["section", "context", "actions", "header", "divider", "input"].includes(String(block.type))) return "invalid_blocks";
      if (block.type === "section") {
        const text = block.text as Json | undefined;
        if (!text || !["mrkdwn", "plain_text"].includes(String(text.type)) || typeof text.text !== "string" || text.text.length > 3000) return "invalid_blocks";
      }
      if (block.type === "actions") {
        const elements = block.elements as Json[];
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return "invalid_blocks";
        for (const el of elements) {
          const label = el.text as Json | undefined;
          if (el.type !== "button" || typeof el.action_id !== "string" || el.action_id.length > 255) return "invalid_blocks";
          if (!label || label.type !== "plain_text" || typeof label.text !== "string" || label.text.length > 75) return "invalid_blocks";
          if (el.url !== undefined && !/^https?:\/\//.test(String(el.url))) return "invalid_blocks";
          if (el.style !== undefined && !["primary", "danger"].includes(String(el.style))) return "invalid_blocks";
        }
      }
    }
    return null;
  }

  function handle(method: string, body: Json): Json {
    switch (method) {
      case "chat.postMessage": {
        if (typeof body.channel !== "string" || !body.channel) return fail("channel_not_found");
        if (typeof body.text !== "string" || !body.text) return fail("no_text");
        const bad = checkBlocks(body.blocks);
        if (bad) return fail(bad);
        // A member's id as the channel: the app's direct messages with them.
        const channel = /^U/.test(body.channel) ? `D${body.channel.slice(1)}` : body.channel;
        const ts = `1700000000.${String(++counter).padStart(6, "0")}`;
        const blocks = body.blocks as Json[];
        state.messages.push({ channel, ts, text: body.text, blocks, versions: [{ text: body.text, blocks }] });
        return { ok: true, channel, ts };
      }
      case "chat.update": {
        const message = state.messages.find((m) => m.channel === body.channel && m.ts === body.ts);
        if (!message) return fail("message_not_found");
        if (typeof body.text !== "string") return fail("no_text");
        const bad = checkBlocks(body.blocks);
        if (bad) return fail(bad);
        message.text = body.text;
        message.blocks = body.blocks as Json[];
        message.versions.push({ text: message.text, blocks: message.blocks });
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case "chat.postEphemeral":
        if (typeof body.channel !== "string" || typeof body.user !== "string" || typeof body.text !== "string") return fail("invalid_arguments");
        state.ephemeral.push({ channel: body.channel, user: body.user, text: body.text });
        return { ok: true, message_ts: "1700000000.999999" };
      case "views.open": {
        const view = body.view as Json | undefined;
        if (typeof body.trigger_id !== "string" || !view || view.type !== "modal" || !Array.isArray(view.blocks)) return fail("invalid_arguments");
        state.views.push({ trigger_id: body.trigger_id, view });
        return { ok: true, view: { id: "V1" } };
      }
      case "users.lookupByEmail": {
        const id = state.members.get(String(body.email));
        return id ? { ok: true, user: { id } } : fail("users_not_found");
      }
      default:
        return fail("unknown_method");
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = (req.url ?? "").replace(/^\/api\//, "");
      state.calls.push(method);
      let answer: Json;
      if (req.headers.authorization !== `Bearer ${token}`) answer = fail("invalid_auth");
      else if (!String(req.headers["content-type"]).startsWith("application/json")) answer = fail("invalid_form_data");
      else {
        try {
          answer = handle(method, JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json);
        } catch {
          answer = fail("invalid_json");
        }
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    env.CLAWDECK_SLACK_BASE_URL = `http://127.0.0.1:${port}`;
    env.CLAWDECK_FETCH_ALLOW = [env.CLAWDECK_FETCH_ALLOW, "127.0.0.1"].filter(Boolean).join(",");
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}
