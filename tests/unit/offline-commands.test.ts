import { describe, expect, it } from "vitest";
import { parseCommand } from "@/lib/models/offline";

describe("the offline model's commands", () => {
  it("follows its grammar", () => {
    expect(parseCommand("slack #general hello")).toEqual({ name: "slack.post", input: { channel: "#general", text: "hello" } });
    expect(parseCommand("fetch https://example.com")).toEqual({ name: "http.fetch", input: { url: "https://example.com" } });
    expect(parseCommand("tell @scout find the notes")).toEqual({ name: "chat.send", input: { to: "scout", message: "find the notes" } });
  });

  const plain = { plain: true };

  it("understands, from a person in their chat, the plain forms people type first: a Slack post that names Slack, an address to open", () => {
    expect(parseCommand("Post 'Release ships Friday' to #general on Slack", plain)).toEqual({ name: "slack.post", input: { channel: "#general", text: "Release ships Friday" } });
    expect(parseCommand("please send “Deploy done” to Slack #Ops.", plain)).toEqual({ name: "slack.post", input: { channel: "#ops", text: "Deploy done" } });
    expect(parseCommand("Open https://example.com/notes.", plain)).toEqual({ name: "http.fetch", input: { url: "https://example.com/notes" } });
  });

  it("takes another agent's or a room's words by the grammar only", () => {
    expect(parseCommand("Post 'Release ships Friday' to #general on Slack")).toBeNull();
    expect(parseCommand("Read https://example.com/notes")).toBeNull();
  });

  it("reads the grammar first: a room post that mentions Slack stays a room post", () => {
    expect(parseCommand("post #general the plan: say hi to #random on Slack", plain)).toEqual({
      name: "chat.send",
      input: { room: "general", message: "the plan: say hi to #random on Slack" },
    });
  });

  it("leaves other sentences alone: a room post without Slack, a greeting, an empty quote", () => {
    expect(parseCommand("post hello to #ops", plain)).toBeNull();
    expect(parseCommand("hi there, how are you?", plain)).toBeNull();
    expect(parseCommand("post '' to #general on slack", plain)).toBeNull();
    expect(parseCommand("open the pod bay doors", plain)).toBeNull();
  });
});
