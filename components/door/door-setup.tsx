"use client";

import { useState, useSyncExternalStore } from "react";
import { CopyButton } from "../ui/copy-button";

/** The door's address as this browser reaches the deck (the server has no say in which name people use for it). */
export function useDoorEndpoint(): string | null {
  return useSyncExternalStore(
    () => () => undefined,
    () => `${window.location.origin}/api/mcp`,
    () => null,
  );
}

type Client = "claude-code" | "cursor" | "claude-desktop";

const clients: { id: Client; label: string; where: string }[] = [
  { id: "claude-code", label: "Claude Code", where: "Run in a terminal:" },
  { id: "cursor", label: "Cursor", where: "Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project):" },
  { id: "claude-desktop", label: "Claude Desktop", where: "Add to claude_desktop_config.json (the mcp-remote bridge carries the requests):" },
];

function plainHttpElsewhere(endpoint: string): boolean {
  const url = new URL(endpoint);
  return url.protocol === "http:" && url.hostname !== "localhost";
}

/** What to paste into each client to connect it through the door, with `token` (or a placeholder) filled in. */
export function doorSnippet(client: Client, endpoint: string, token: string): string {
  switch (client) {
    case "claude-code":
      return `claude mcp add --transport http clawdeck ${endpoint} \\\n  --header "Authorization: Bearer ${token}"`;
    case "cursor":
      return JSON.stringify({ mcpServers: { clawdeck: { url: endpoint, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
    case "claude-desktop":
      return JSON.stringify(
        {
          mcpServers: {
            clawdeck: {
              command: "npx",
              // mcp-remote refuses plain http to anywhere but localhost unless told to.
              args: ["-y", "mcp-remote", endpoint, "--header", "Authorization:${CLAWDECK_DOOR}", ...(plainHttpElsewhere(endpoint) ? ["--allow-http"] : [])],
              env: { CLAWDECK_DOOR: `Bearer ${token}` },
            },
          },
        },
        null,
        2,
      );
  }
}

/**
 * How to connect a client: the endpoint to copy, and a ready-made setup for Claude Code, Cursor and Claude Desktop.
 * With `token` (a token just made, shown once) the snippets carry it; without, a placeholder stands in its place.
 */
export function DoorSetup({ token }: { token?: string }) {
  const endpoint = useDoorEndpoint();
  const [client, setClient] = useState<Client>("claude-code");
  if (!endpoint) return null;
  const chosen = clients.find((c) => c.id === client)!;
  const snippet = doorSnippet(client, endpoint, token ?? "cdk_…");
  return (
    <div className="min-w-0 space-y-2 text-sm" data-testid="door-setup">
      <div className="flex min-w-0 flex-wrap items-center gap-2">
        <span className="text-slate-600">Endpoint</span>
        <code className="min-w-0 break-all rounded bg-slate-100 px-1.5 py-0.5 text-xs" data-testid="door-endpoint">
          {endpoint}
        </code>
        <CopyButton text={endpoint} what="the endpoint" />
      </div>
      <div role="radiogroup" aria-label="Client to set up" className="flex flex-wrap gap-1">
        {clients.map((c) => (
          <button
            key={c.id}
            type="button"
            role="radio"
            aria-checked={client === c.id}
            className={`rounded-md px-2 py-1 text-xs ring-1 ring-inset ${client === c.id ? "bg-indigo-600 text-white ring-indigo-600" : "bg-surface text-slate-700 ring-slate-300 hover:bg-slate-50"}`}
            onClick={() => setClient(c.id)}>
            {c.label}
          </button>
        ))}
      </div>
      <p className="text-xs text-slate-600">
        {chosen.where} {token ? "The token is filled in: keep it out of files you share." : "Put your token where it says cdk_…."}
      </p>
      <div className="relative min-w-0">
        <pre className="max-w-full overflow-x-auto rounded bg-slate-900 p-2 pr-16 text-xs text-slate-100" tabIndex={0} aria-label={`${chosen.label} setup`} data-testid="door-snippet">
          {snippet}
        </pre>
        <CopyButton text={snippet} what={`the ${chosen.label} setup`} className="absolute top-1.5 right-1.5" />
      </div>
    </div>
  );
}
