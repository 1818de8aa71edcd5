/** The commands the offline model follows, and its model name: all the browser needs of it (the chat shows them). */
export const offlineGrammar = [
  { command: "fetch <url>", tool: "http.fetch", example: "fetch https://example.com" },
  { command: "tell @<handle> <text>", tool: "chat.send", example: "tell @scout find the release notes" },
  { command: "post #<room> <text>", tool: "chat.send", example: "post #ops deploy is done" },
  { command: "slack #<channel> <text>", tool: "slack.post", example: "slack #general hello" },
  { command: "remember <text>", tool: "memory.remember", example: "remember the launch is on Friday" },
  { command: "recall <query>", tool: "memory.recall", example: "recall launch" },
  { command: "run <command>", tool: "shell.exec", example: "run python3 hello.py" },
  { command: "run online <command>", tool: "shell.exec", example: "run online curl -sI https://example.com" },
  { command: "write <path>, then the file's lines", tool: "files.write", example: "write hello.py\nprint('hello')" },
  { command: "read <path>", tool: "files.read", example: "read hello.py" },
  { command: "ls [<folder>]", tool: "files.list", example: "ls" },
  { command: "delete <path>", tool: "files.delete", example: "delete old.txt" },
  { command: "browse <url>", tool: "browser.open", example: "browse https://example.com" },
  { command: "click <text>", tool: "browser.act", example: "click More information" },
] as const;

export const OFFLINE_MODEL = "offline";
