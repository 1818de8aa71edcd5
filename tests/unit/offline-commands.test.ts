import { describe, expect, it } from "vitest";
import { parseCommand } from "@/lib/models/offline";

describe("the offline model's commands", () => {
  it("follows its grammar", () => {
    expect(parseCommand("slack #general hello")).toEqual({ name: "slack.post", input: { channel: "#general", text: "hello" } });
    expect(parseCommand("fetch https://example.com")).toEqual({ name: "http.fetch", input: { url: "https://example.com" } });
    expect(parseCommand("tell @scout find the notes")).toEqual({ name: "chat.send", input: { to: "scout", message: "find the notes" } });
  });

  it("understands the plain forms people type first: a Slack post that names Slack, an address to open", () => {
    expect(parseCommand("Post 'Release ships Friday' to #general on Slack")).toEqual({ name: "slack.post", input: { channel: "#general", text: "Release ships Friday" } });
    expect(parseCommand("please send “Deploy done” to Slack #Ops.")).toEqual({ name: "slack.post", input: { channel: "#ops", text: "Deploy done" } });
    expect(parseCommand("Open https://example.com/notes.")).toEqual({ name: "http.fetch", input: { url: "https://example.com/notes" } });
  });

  it("leaves other sentences alone: a room post without Slack, a greeting, an empty quote", () => {
    expect(parseCommand("post hello to #ops")).toBeNull();
    expect(parseCommand("hi there, how are you?")).toBeNull();
    expect(parseCommand("post '' to #general on slack")).toBeNull();
    expect(parseCommand("open the pod bay doors")).toBeNull();
  });
});
