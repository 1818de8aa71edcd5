import { safeSlice, truncate } from "../text";
import type { ContentBlock, ModelEvent, ModelMessage, ModelProvider, ModelRequest } from "./types";
import { offlineGrammar } from "./offline-grammar";

/**
 * The offline model: no network, no key, deterministic. It follows a small
 * grammar so that every tool can be used without a real model, and streams
 * its reply in small pieces at a pace a person can watch.
 */
export { OFFLINE_MODEL, offlineGrammar } from "./offline-grammar";
/** Header of the notes section the runtime adds to a system prompt; the offline model reads it back. */
export const MEMORIES_HEADING = "## What you remember";
/** Header of the section of the agent's replies in other chats: context for a model, never quoted as a fact. */
export const EARLIER_REPLIES_HEADING = "## What you said in earlier chats";

interface Call {
  name: string;
  input: Record<string, unknown>;
}

/** Quotes around a text to send, as people type them ("…", “…”, '…'), taken off. */
const unquote = (text: string) => text.trim().replace(/^["“'‘](.*)["”'’]$/s, "$1").trim();

/**
 * One line of a message as a tool call: a command of the grammar, or, with
 * `plain` (a person's own chat, not a message from an agent or a room), one
 * of the few plain forms people type first ("post 'hi' to #general on
 * Slack", "open https://…"). Anything else is not a command.
 */
export function parseCommand(line: string, options: { plain?: boolean } = {}): Call | null {
  return grammarCommand(line) ?? (options.plain ? plainCommand(line.trim()) : null);
}

/** The plain forms: they name Slack (a room post stays `post #room`) or hold a single address. */
function plainCommand(text: string): Call | null {
  let m: RegExpMatchArray | null;
  if ((m = text.match(/^(?:please\s+)?(?:post|send|write|say)\s+([^#\s].*?)\s+(?:to|in|on)\s+#([a-z0-9_.-]+)\s+(?:on|in)\s+slack[.!]?$/i)) ||
      (m = text.match(/^(?:please\s+)?(?:post|send|write|say)\s+([^#\s].*?)\s+(?:to|in|on)\s+slack(?:'s)?\s+#([a-z0-9_.-]*[a-z0-9_-])[.!]?$/i))) {
    return unquote(m[1]!) ? { name: "slack.post", input: { channel: `#${m[2]!.toLowerCase()}`, text: unquote(m[1]!) } } : null;
  }
  if ((m = text.match(/^(?:please\s+)?(?:open|read|get|visit|look\s+at)\s+(https?:\/\/\S+?)[.!?]?$/i))) return { name: "http.fetch", input: { url: m[1]! } };
  return null;
}

function grammarCommand(line: string): Call | null {
  const text = line.trim();
  let m: RegExpMatchArray | null;
  if ((m = text.match(/^fetch\s+(\S+)\s*$/i))) return { name: "http.fetch", input: { url: m[1]! } };
  if ((m = text.match(/^tell\s+@([a-z0-9_-]+)\s+([\s\S]+)$/i))) return { name: "chat.send", input: { to: m[1]!.toLowerCase(), message: m[2]!.trim() } };
  if ((m = text.match(/^post\s+#([a-z0-9_-]+)\s+([\s\S]+)$/i))) return { name: "chat.send", input: { room: m[1]!.toLowerCase(), message: m[2]!.trim() } };
  if ((m = text.match(/^slack\s+#([a-z0-9_.-]+)\s+([\s\S]+)$/i))) return { name: "slack.post", input: { channel: `#${m[1]!.toLowerCase()}`, text: m[2]!.trim() } };
  if ((m = text.match(/^remember\s+([\s\S]+)$/i))) return { name: "memory.remember", input: { text: m[1]!.trim() } };
  if ((m = text.match(/^recall\s+([\s\S]+)$/i))) return { name: "memory.recall", input: { query: m[1]!.trim() } };
  if ((m = text.match(/^run\s+online\s+([\s\S]+)$/i))) return { name: "shell.exec", input: { command: m[1]!.trim(), network: true } };
  if ((m = text.match(/^run\s+([\s\S]+)$/i))) return { name: "shell.exec", input: { command: m[1]!.trim() } };
  if ((m = text.match(/^read\s+(?!https?:\/\/)(\S+)$/i))) return { name: "files.read", input: { path: m[1]! } };
  if ((m = text.match(/^ls(?:\s+(\S+))?$/i))) return { name: "files.list", input: m[1] ? { path: m[1] } : {} };
  if ((m = text.match(/^delete\s+(\S+)$/i))) return { name: "files.delete", input: { path: m[1]! } };
  if ((m = text.match(/^browse\s+(\S+)$/i))) return { name: "browser.open", input: { url: m[1]! } };
  if ((m = text.match(/^click\s+([\s\S]+)$/i))) return { name: "browser.act", input: { action: "click", target: m[1]!.trim() } };
  return null;
}

/**
 * Every command in a message, one per line; `write <path>` takes the lines after it as the file's contents, so it is
 * the last command of its message.
 */
export function parseCommands(text: string, options: { plain?: boolean } = {}): Call[] {
  const lines = text.split("\n");
  const calls: Call[] = [];
  for (const [i, line] of lines.entries()) {
    const write = line.trim().match(/^write\s+(\S+)$/i);
    if (write) {
      const content = lines.slice(i + 1).join("\n");
      calls.push({ name: "files.write", input: { path: write[1]!, content: content.endsWith("\n") || !content ? content : `${content}\n` } });
      break;
    }
    const call = parseCommand(line, options);
    if (call) calls.push(call);
  }
  return calls;
}

const textOf = (blocks: ContentBlock[]) =>
  blocks
    .filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("\n");

export const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Words that almost every question holds: matched on, they would tie any note to any question. */
const STOPWORDS = new Set([
  "about", "and", "are", "but", "can", "could", "did", "does", "for", "from", "had", "has", "have", "how", "its", "not",
  "please", "tell", "that", "the", "there", "this", "was", "what", "when", "where", "which", "who", "why", "will", "with",
  "would", "you", "your",
]);

/** The words of a text that carry its meaning: three letters or more, common question words left out. */
function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => !STOPWORDS.has(w)));
}

/** The notes listed under `MEMORIES_HEADING`, up to the next heading (earlier replies are not notes). */
function notesFrom(system: string): string[] {
  const at = system.indexOf(MEMORIES_HEADING);
  if (at < 0) return [];
  const lines = system.slice(at + MEMORIES_HEADING.length).split("\n");
  const end = lines.findIndex((l) => l.startsWith("## "));
  return (end < 0 ? lines : lines.slice(0, end)).map((l) => l.match(/^- (.+)$/)?.[1]?.trim()).filter((l): l is string => !!l);
}

/** The help answer names only the commands whose tool this agent has (`available`), or says it has none. */
/**
 * "count to N" from the person (N from 1 to 2,000): the numbers from 1 to N, a long reply at the model's pace to watch,
 * stop or reload in the middle of.
 */
export function countTo(question: string): string | null {
  const m = question.trim().match(/^count (?:up )?to (\d{1,4})\.?$/i);
  const n = m ? Number(m[1]) : 0;
  if (n < 1 || n > 2000) return null;
  return `${Array.from({ length: n }, (_, i) => i + 1).join(", ")}.`;
}

function plainAnswer(question: string, system: string, available: ReadonlySet<string>): string {
  const asked = words(question);
  const relevant = notesFrom(system).filter((note) => [...words(note)].some((w) => asked.has(w)));
  if (relevant.length > 0) {
    return `From what I remember:\n\n${relevant.slice(0, 5).map((m) => `- ${m}`).join("\n")}`;
  }
  const usable = offlineGrammar.filter((g) => available.has(g.tool));
  const intro = "I'm the offline model: I run without a network or an API key, so I can't reason about that the way a real model would.";
  if (usable.length === 0) return `${intro}\n\nThis agent has no tools, so there is nothing I can do for you here beyond this answer.`;
  return [
    intro,
    "",
    "I can use tools with these commands, one per line:",
    "",
    ...usable.map((g) => `- \`${g.command}\``),
    ...(/\bslack\b/i.test(question) && available.has("slack.post")
      ? ["", "For Slack, for example: `slack #general Release ships Friday` (or: post \"Release ships Friday\" to #general on Slack)."]
      : []),
  ].join("\n");
}

/** "**Researcher** on “the goal”: built on the work of @atlas (Lead)." → "built on the work of @atlas (Lead)." */
function sentenceOf(answer: string): string {
  const first = answer.split("\n").find((l) => l.trim()) ?? "";
  const said = first.match(/^\*\*.+?\*\* on “.*”: (.+)$/)?.[1];
  return truncate((said ?? first.replace(/^[-*#>\s]+/, "")).replace(/\*\*/g, "").trim(), 160, "…");
}

const andList = (items: string[]) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/**
 * A mission node's turn ("Mission goal: …" then its role, instructions and
 * what it was handed). The offline model runs the instructions' command when
 * they hold one; a node that can post to Slack posts when the goal asks for a
 * Slack post; otherwise it answers in one sentence of what it did, then one
 * line per teammate whose work it was handed (their sentence, never their
 * whole answer), so a crew's result reads as a result, not quotes in quotes.
 */
export function missionAnswer(raw: string, available: ReadonlySet<string> = new Set()): { text: string; command: Call | null } | null {
  const head = raw.match(/^Mission goal: ([^\n]*)\nYour role: ([^\n]*)/);
  if (!head) return null;
  const goal = head[1]!.trim();
  const instructions = raw.match(/^Instructions: ([^\n]*)$/m)?.[1] ?? "";
  const handed = [...raw.matchAll(/^--- from (.+?) ---\n([\s\S]*?)(?=\n--- from |$)/gm)].map((m) => ({ from: m[1]!, text: m[2]!.trim() }));
  const teammates = handed.filter((h) => h.from !== "your previous work");
  const sentence =
    teammates.length === 0
      ? "started from the goal itself."
      : teammates.length === 1
        ? `built on the work of ${teammates[0]!.from}.`
        : `brought together the work of ${andList(teammates.map((h) => h.from))}.`;
  const lines = [`**${head[2]}** on “${truncate(goal, 160, "…")}”: ${sentence}`];
  if (handed.length > 0) lines.push("", ...handed.map((h) => `- ${h.from}: ${sentenceOf(h.text)}`));
  const text = lines.join("\n");
  return { text, command: parseCommand(instructions) ?? slackPostForGoal(goal, available, teammates.length > 0 ? andList(teammates.map((h) => `${h.from} ${sentenceOf(h.text)}`)) : null) };
}

/**
 * A goal that asks for a Slack post ("… and announce it in #launch on Slack"): the post, by a node that can make it,
 * to the channel it names (#general when it names none). What it posts says what the crew did; a reviewer sees it
 * exactly before it goes.
 */
function slackPostForGoal(goal: string, available: ReadonlySet<string>, handed: string | null): Call | null {
  if (!available.has("slack.post") || !/\bslack\b/i.test(goal)) return null;
  const channel = goal.match(/#([a-z0-9_-]+)/i)?.[1]?.toLowerCase() ?? "general";
  const task = goal.replace(/\s*(?:,\s*)?(?:and\s+|then\s+)?(?:post|send|share|announce)\b[^.]*\bslack\b[^.]*\.?$/i, "").replace(/[.!\s]+$/, "");
  const text = `Update from the crew on ${task ? `“${truncate(task, 120, "…")}”` : "the mission"}: ${handed ?? "the work is done."}`;
  return { name: "slack.post", input: { channel: `#${channel}`, text } };
}

function parseResult(content: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(content);
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    return { value: content };
  }
}

function describeResult(call: Call | undefined, block: Extract<ContentBlock, { type: "tool_result" }>): string {
  const name = call?.name ?? "tool";
  const result = parseResult(block.content);
  if (block.isError) return `The \`${name}\` call did not work: ${String(result.error ?? result.value ?? block.content)}`;
  if (typeof result.summary === "string") return result.summary;
  if (name === "http.fetch") {
    const text = String(result.text ?? "").replace(/\s+/g, " ").trim();
    const title = result.title ? ` “${String(result.title)}”` : "";
    return `I fetched ${String(result.url ?? call?.input.url)}${title} (HTTP ${String(result.status)}). It begins: “${truncate(text, 241, "…")}”`;
  }
  return `The \`${name}\` call finished.`;
}

function answerAfterTools(messages: ModelMessage[]): string {
  const last = messages[messages.length - 1]!;
  const previous = messages[messages.length - 2];
  const calls = new Map<string, Call>();
  for (const block of previous?.content ?? []) {
    if (block.type === "tool_use") calls.set(block.id, { name: block.name, input: block.input });
  }
  return last.content
    .filter((b): b is Extract<ContentBlock, { type: "tool_result" }> => b.type === "tool_result")
    .map((b) => describeResult(calls.get(b.toolUseId), b))
    .join("\n\n");
}

function leadIn(calls: Call[]): string {
  const names = [...new Set(calls.map((c) => c.name))];
  if (names.length === 1 && names[0] === "memory.remember") return "Noting that down.";
  if (names.length === 1 && names[0] === "memory.recall") return "Let me check what I remember.";
  if (names.length === 1 && names[0] === "http.fetch") return "Fetching that page.";
  if (names.length === 1 && names[0] === "shell.exec") return calls.length === 1 ? "Running that on my computer." : `Running ${calls.length} commands on my computer.`;
  return calls.length === 1 ? "On it." : `On it: ${calls.length} steps.`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortError(): Error {
  const error = new Error("The model call was aborted.");
  error.name = "AbortError";
  return error;
}

/** Pieces of 3 to 10 code units, cut the same way every time and never inside a character. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const size = 3 + ((i * 7 + text.length) % 8);
    let piece = safeSlice(text, i, i + size);
    // A cut moved back before an emoji would leave nothing: take the whole character.
    if (!piece) piece = text.slice(i, i + 2);
    out.push(piece);
    i += piece.length;
  }
  return out;
}

export function createOfflineProvider(options: { delayMs?: number; missionMs?: number } = {}): ModelProvider {
  const delayMs = options.delayMs ?? 25;
  const missionMs = options.missionMs ?? 0;
  return {
    name: "offline",
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const last = request.messages[request.messages.length - 1];
      if (!last || last.role !== "user") throw new Error("The offline model needs a user message last.");
      const available = new Set(request.tools.map((t) => t.name));
      const promptChars =
        request.system.length + request.messages.reduce((n, m) => n + JSON.stringify(m.content).length, 0);
      yield { type: "usage", usage: { inputTokens: estimateTokens(" ".repeat(promptChars)), outputTokens: 0 } };

      let text: string;
      let calls: Call[] = [];
      let pace = delayMs;
      if (last.content.some((b) => b.type === "tool_result")) {
        text = answerAfterTools(request.messages);
      } else {
        const raw = textOf(last.content);
        const mission = missionAnswer(raw, available);
        // A message from another agent or a room arrives as "Message from @x [in #room]: …": its body is what to act on.
        const from = raw.match(/^Message from (.+?)(?: in #([a-z0-9_-]+))?:\s*([\s\S]*)$/i);
        const question = from ? from[3]! : raw;
        // Plain forms only from the person in their own chat: another agent's or a room's words follow the grammar.
        const commands = mission ? (mission.command ? [mission.command] : []) : parseCommands(question, { plain: !from });
        const missing = commands.filter((c) => !available.has(c.name));
        if (missing.length > 0) {
          text = `I can't do that here: this agent doesn't have the ${[...new Set(missing.map((c) => `\`${c.name}\``))].join(", ")} tool.`;
        } else if (commands.length > 0) {
          calls = commands;
          text = leadIn(commands);
        } else if (mission) {
          text = mission.text;
          // A node's answer takes its time, so a crew can be watched working node by node.
          pace = Math.max(delayMs, missionMs / Math.max(1, pieces(text).length));
        } else if (!from && countTo(question) !== null) {
          text = countTo(question)!;
        } else if (from) {
          text = `Thanks ${from[1]}, noted${from[2] ? ` in #${from[2]}` : ""}: “${truncate(question.trim(), 200)}”.`;
        } else {
          text = plainAnswer(question, request.system, available);
        }
      }

      // Piece k is due k × delayMs after the first, as a provider's stream arrives on its own clock: a consumer that
      // was busy gets the pieces that came meanwhile at once, and the reply takes as long as it would have.
      const start = Date.now();
      for (const [k, piece] of pieces(text).entries()) {
        await sleep(Math.max(0, start + (k + 1) * pace - Date.now()), request.signal);
        yield { type: "text", delta: piece };
      }
      for (const [index, call] of calls.entries()) {
        yield { type: "tool_call", id: `offline_${Date.now().toString(36)}_${index}`, name: call.name, input: call.input };
      }
      const outputChars = text.length + calls.reduce((n, c) => n + JSON.stringify(c.input).length + c.name.length, 0);
      yield { type: "usage", usage: { outputTokens: estimateTokens(" ".repeat(outputChars)) } };
      yield { type: "stop", reason: calls.length > 0 ? "tool_use" : "end_turn" };
    },
  };
}
