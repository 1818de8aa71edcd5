import { describe, expect, it } from "vitest";
import { createOfflineProvider, EARLIER_REPLIES_HEADING, MEMORIES_HEADING } from "@/lib/models/offline";

/** The offline model's whole answer to a person's question, with the given system prompt. */
async function answer(question: string, system: string, tools: string[] = ["memory.remember", "memory.recall"]): Promise<string> {
  const stream = createOfflineProvider({ delayMs: 0 }).stream({
    model: "offline",
    system,
    messages: [{ role: "user", content: [{ type: "text", text: question }] }],
    tools: tools.map((name) => ({ name, description: name, inputSchema: { type: "object" } })),
    maxTokens: 1000,
  });
  let text = "";
  for await (const event of stream) if (event.type === "text") text += event.delta;
  return text;
}

const prompt = (notes: string[], replies: string[] = []) =>
  [
    "You are Bot, an agent of this team.",
    ...(notes.length > 0 ? [`${MEMORIES_HEADING}\n${notes.map((n) => `- ${n}`).join("\n")}`] : []),
    ...(replies.length > 0 ? [`${EARLIER_REPLIES_HEADING}\n${replies.map((r) => `- ${r}`).join("\n")}`] : []),
  ].join("\n\n");

describe("the offline model's answer to a plain question", () => {
  it("quotes a note that shares a meaningful word with the question, and not one that shares only “what” and “the”", async () => {
    const text = await answer("what is the release date?", prompt(["The release date is Friday", "What the office needs is a new printer"]));
    expect(text).toBe("From what I remember:\n\n- The release date is Friday");
  });

  it("does not tie a note to a question by the question's common words: “How do you work?” gets the help answer", async () => {
    const text = await answer("How do you work?", prompt(["You asked what the team does and how", "Tell them about the plan for this week"]));
    expect(text).not.toContain("From what I remember");
    expect(text).toContain("I'm the offline model");
    expect(text).toContain("`remember <text>`");
  });

  it("never quotes what it said in earlier chats, even when it shares the question's words", async () => {
    const earlier = "From what I remember: - I'm the offline model: I can use tools with these commands";
    const text = await answer("Which tools and commands can I use?", prompt(["The office is closed on Monday"], [earlier]));
    expect(text).not.toContain("From what I remember");
    expect(text).toContain("I'm the offline model");
  });

  it("quotes only the notes when earlier replies follow them in the prompt", async () => {
    const text = await answer("When is the release?", prompt(["The release is on Friday"], ["Noted. I'll remember: “The release is on Friday”"]));
    expect(text).toBe("From what I remember:\n\n- The release is on Friday");
  });

  it("names only the commands of the tools this agent has, and says so when it has none", async () => {
    const scout = await answer("How do you work?", prompt([]), ["http.fetch", "memory.remember", "memory.recall"]);
    expect(scout.split("\n").filter((l) => l.startsWith("- "))).toEqual(["- `fetch <url>`", "- `remember <text>`", "- `recall <query>`"]);
    expect(await answer("Can you post to slack?", prompt([]), ["http.fetch"])).not.toContain("slack #general");
    expect(await answer("Can you post to slack?", prompt([]), ["slack.post"])).toContain("For Slack, for example: `slack #general Release ships Friday`");
    expect(await answer("What can you do?", prompt([]), [])).toContain("This agent has no tools");
  });
});

describe("“count to N”", () => {
  it("writes the numbers from 1 to N, and takes 1 to 2,000 only", async () => {
    expect(await answer("count to 5", prompt([]))).toBe("1, 2, 3, 4, 5.");
    expect(await answer("Count up to 3.", prompt([]))).toBe("1, 2, 3.");
    const long = await answer("count to 2000", prompt([]));
    expect(long.startsWith("1, 2, 3,")).toBe(true);
    expect(long.endsWith("1999, 2000.")).toBe(true);
    for (const other of ["count to 0", "count to 2001", "count to ten", "please count to 5 and then stop"]) {
      expect(await answer(other, prompt([]))).toContain("I'm the offline model");
    }
  });

  it("is the person's form only: another agent asking gets the usual acknowledgement", async () => {
    expect(await answer("Message from @atlas: count to 5", prompt([]))).toBe("Thanks @atlas, noted: “count to 5”.");
  });
});
