"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createTwoFilesPatch } from "diff";
import { FileText, Folder } from "lucide-react";
import { useState } from "react";
import { computerStatusSchema, fileEntriesSchema, fileHistorySchema, recentCommandsSchema, restoredSchema, type RecentCommand } from "@/lib/computers/computer-schemas";
import { agentKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { Time } from "../ui/time";
import { toast } from "../ui/toaster";
import { agentFileUrl, BrowserBlock } from "./step-blocks";
import { CodeView } from "./code-view";
import { DiffBlock } from "./diff-block";
import { XtermView } from "./xterm-view";

const IMAGE = /\.(png|jpe?g|gif|webp)$/i;

/** How a command in the terminal ended, in words. */
function commandEnd(c: { exitCode: number | null; stoppedBy: string | null; signal: string | null; durationMs: number | null }): string {
  const took = c.durationMs === null ? "" : ` · ${(c.durationMs / 1000).toFixed(1)} s`;
  if (c.stoppedBy === "timeout") return `stopped at its time limit${took}`;
  if (c.stoppedBy === "cancelled") return `stopped${took}`;
  if (c.stoppedBy === "workspace_full") return `stopped: the workspace was full${took}`;
  if (c.signal) return `ended by ${c.signal}${took}`;
  return `exit code ${c.exitCode}${took}`;
}

const ANSI = { prompt: "\x1b[32m", bold: "\x1b[1m", muted: "\x1b[90m", reset: "\x1b[0m" };

/** The agent's last commands as a terminal shows them, oldest first: prompt, command, output, how it ended. */
function terminalText(commands: RecentCommand[]): string {
  return [...commands]
    .reverse()
    .map((c) => {
      const output = c.output && !c.output.endsWith("\n") ? `${c.output}\n` : c.output;
      const ending = c.status === "running" ? "(running…)" : c.error ? `(${c.error})` : `(${commandEnd(c)})`;
      return `${ANSI.prompt}${c.cwd ? `/workspace/${c.cwd}` : "/workspace"} $ ${ANSI.reset}${ANSI.bold}${c.command}${ANSI.reset}\n${output}${ANSI.muted}${ending}${ANSI.reset}\n`;
    })
    .join("");
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * An agent's computer as people see it: whether commands can run here, the commands running now, and its files: a
 * folder at a time, a file's contents (text or image) at any version, its history, and (for managers) a restore.
 */
export function ComputerPanel({ agentId, canManage }: { agentId: string; canManage: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const [folder, setFolder] = useState("");
  const [open, setOpen] = useState<{ path: string; version: number | null } | null>(null);
  const status = useQuery({
    queryKey: agentKeys.computer(slug, agentId),
    queryFn: () => api(`/api/agents/${agentId}/computer`, { schema: computerStatusSchema }),
    refetchInterval: (query) => (query.state.data?.running.length ? 2_000 : 15_000),
  });
  const files = useQuery({
    queryKey: agentKeys.files(slug, agentId, folder),
    queryFn: () => api(`/api/agents/${agentId}/files?path=${encodeURIComponent(folder)}`, { schema: fileEntriesSchema }),
  });
  const running = (status.data?.running.length ?? 0) > 0;
  const commands = useQuery({
    queryKey: [...agentKeys.computer(slug, agentId), "commands"],
    queryFn: () => api(`/api/agents/${agentId}/commands`, { schema: recentCommandsSchema }),
    refetchInterval: running ? 2_000 : 15_000,
  });
  const crumbs = folder ? folder.split("/") : [];
  const queryClient = useQueryClient();
  const stop = useMutation({
    mutationFn: () => api(`/api/agents/${agentId}/computer/stop`, { method: "POST" }),
    onSuccess: () => toast.success("The running commands were stopped."),
    onSettled: () => queryClient.invalidateQueries({ queryKey: agentKeys.computer(slug, agentId) }),
  });

  return (
    <section aria-labelledby="computer-heading" className="space-y-2" data-testid="computer">
      <h2 id="computer-heading" className="text-sm font-semibold tracking-wide text-slate-500 uppercase">
        Computer
      </h2>
      <div className="card space-y-3 p-4">
        {status.data ? (
          status.data.engine === "off" ? (
            <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">{status.data.reason ?? "Commands cannot run on this server."}</p>
          ) : (
            <p className="text-sm text-slate-600">
              A sandbox with a shell, a browser and these files. Commands have no network unless a person allows it. {status.data.running.length === 0 ? "No command is running." : null}
            </p>
          )
        ) : null}
        {status.data && status.data.running.length > 0 && canManage ? (
          <button type="button" className="btn-danger py-1 text-xs" disabled={stop.isPending} onClick={() => stop.mutate()}>
            {stop.isPending ? "Stopping…" : status.data.running.length === 1 ? "Stop the running command" : `Stop the ${status.data.running.length} running commands`}
          </button>
        ) : null}
        {stop.isError ? <ErrorNotice error={stop.error} fallback="The commands could not be stopped." /> : null}
        {status.data && status.data.running.length > 0 ? (
          <ul aria-label="Running commands" className="space-y-1">
            {status.data.running.map((r) => (
              <li key={r.stepId} className="flex flex-wrap items-center gap-2 rounded-md bg-terminal px-2 py-1 font-mono text-xs text-terminal-text">
                <span className="text-terminal-prompt">$</span>
                <span className="min-w-0 break-all">{r.command}</span>
                <span className="ml-auto text-terminal-muted">
                  running since <Time at={r.startedAt} />
                </span>
              </li>
            ))}
          </ul>
        ) : null}

        {commands.data && commands.data.commands.length > 0 ? (
          <details open={running}>
            <summary className="cursor-pointer text-sm text-slate-600">Terminal: the last {commands.data.commands.length} commands you may see</summary>
            <div className="mt-1" data-testid="computer-terminal">
              <XtermView label="Terminal" text={terminalText(commands.data.commands)} />
            </div>
          </details>
        ) : null}

        {status.data?.browser ? (
          <div aria-label="Browser" role="group" className="rounded-md ring-1 ring-slate-200">
            <p className="px-3 pt-2 text-sm text-slate-600">
              Its browser, last seen <Time at={status.data.browser.at} />:
            </p>
            <BrowserBlock agentId={agentId} shot={status.data.browser} />
          </div>
        ) : null}

        <nav aria-label="Folder" className="flex flex-wrap items-center gap-1 text-sm">
          <button type="button" className="font-mono text-indigo-700 hover:underline" onClick={() => setFolder("")}>
            /workspace
          </button>
          {crumbs.map((part, i) => (
            <span key={i} className="flex items-center gap-1">
              <span className="text-terminal-muted">/</span>
              <button type="button" className="font-mono text-indigo-700 hover:underline" onClick={() => setFolder(crumbs.slice(0, i + 1).join("/"))}>
                {part}
              </button>
            </span>
          ))}
        </nav>
        {files.isError ? <ErrorNotice error={files.error} fallback="The files could not be read." /> : null}
        {files.data && files.data.entries.length === 0 ? <p className="text-sm text-slate-500">{folder ? "This folder is empty." : "No files yet."}</p> : null}
        {files.data && files.data.entries.length > 0 ? (
          <ul aria-label="Files" className="divide-y divide-slate-100 rounded-md ring-1 ring-slate-200">
            {files.data.entries.map((entry) => (
              <li key={entry.path} className="flex flex-wrap items-center gap-x-3 gap-y-0.5 px-3 py-2 text-sm">
                <button
                  type="button"
                  className="inline-flex min-w-0 items-center gap-1.5 font-mono break-all text-indigo-700 hover:underline"
                  onClick={() => (entry.kind === "folder" ? setFolder(entry.path) : setOpen({ path: entry.path, version: null }))}
                >
                  {entry.kind === "folder" ? <Folder aria-hidden className="h-4 w-4 shrink-0" /> : <FileText aria-hidden className="h-4 w-4 shrink-0 text-slate-500" />}
                  {entry.path.split("/").pop()}
                  {entry.kind === "folder" ? "/" : ""}
                </button>
                <span className="ml-auto text-xs text-slate-500 tabular-nums">
                  {formatSize(entry.size)}
                  {entry.version ? ` · version ${entry.version}` : ""} · <Time at={entry.updatedAt} />
                </span>
              </li>
            ))}
          </ul>
        ) : null}
        {open ? <FileView agentId={agentId} path={open.path} version={open.version} canManage={canManage} onVersion={(version) => setOpen({ path: open.path, version })} onClose={() => setOpen(null)} /> : null}
      </div>
    </section>
  );
}

function FileView(props: { agentId: string; path: string; version: number | null; canManage: boolean; onVersion: (version: number | null) => void; onClose: () => void }) {
  const { agentId, path, version } = props;
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const url = agentFileUrl(slug, agentId, path, version);
  const image = IMAGE.test(path);
  const text = useQuery({
    queryKey: agentKeys.file(slug, agentId, path, version),
    enabled: !image,
    queryFn: async () => {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(response.status === 404 ? "This file, or this version of it, is not there (any more)." : "The file could not be read.");
      const type = response.headers.get("content-type") ?? "";
      return type.startsWith("text/") ? await response.text() : null;
    },
  });
  const history = useQuery({
    queryKey: agentKeys.history(slug, agentId, path),
    queryFn: () => api(`/api/agents/${agentId}/files/history?path=${encodeURIComponent(path)}`, { schema: fileHistorySchema }),
  });
  const restore = useMutation({
    mutationFn: (from: number) => api(`/api/agents/${agentId}/files/restore`, { method: "POST", body: { path, version: from }, schema: restoredSchema }),
    onSuccess: async (done) => {
      toast.success(`Restored version ${done.restoredFrom} of ${done.path} as version ${done.version}.`);
      props.onVersion(null);
      await queryClient.invalidateQueries({ queryKey: agentKeys.computer(slug, agentId) });
      await queryClient.invalidateQueries({ queryKey: ["agent-computer", slug, agentId] });
    },
  });
  const latest = history.data?.versions[0]?.version ?? null;
  const shown = version ?? latest;
  // The version before the one shown that had contents: what the changes are counted from.
  const previous = history.data?.versions.find((v) => shown !== null && v.version < shown && !v.deleted)?.version ?? null;

  return (
    <article aria-label={`File ${path}`} className="space-y-2 rounded-md p-3 ring-1 ring-slate-200" data-testid="file-view">
      <header className="flex flex-wrap items-center gap-2">
        <h3 className="min-w-0 font-mono text-sm font-semibold break-all">{path}</h3>
        {shown ? <span className="text-xs text-slate-500">version {shown}{version && version !== latest ? " (not the current one)" : ""}</span> : null}
        <span className="ml-auto flex gap-2">
          <a className="btn-secondary text-xs" href={`${url}&download=1`}>
            Download
          </a>
          <button type="button" className="btn-secondary text-xs" onClick={props.onClose}>
            Close
          </button>
        </span>
      </header>
      {image ? (
        // eslint-disable-next-line @next/next/no-img-element -- the agent's own file, served by the API, not a static asset
        <img src={url} alt={`${path}, version ${shown ?? ""}`} className="max-h-96 max-w-full rounded ring-1 ring-slate-200" />
      ) : text.isError ? (
        <p className="text-sm text-rose-700">{(text.error as Error).message}</p>
      ) : text.data === null ? (
        <p className="text-sm text-slate-600">This file is not text: download it to open it.</p>
      ) : (
        <CodeView path={path} text={text.data ?? "…"} />
      )}
      {!image && typeof text.data === "string" && shown && previous ? (
        <ChangesSince agentId={agentId} path={path} version={shown} previous={previous} text={text.data} />
      ) : null}
      {history.data ? (
        <details>
          <summary className="cursor-pointer text-sm text-slate-600">History: {history.data.versions.length} version{history.data.versions.length === 1 ? "" : "s"}</summary>
          <ol aria-label="Versions" className="mt-1 space-y-1">
            {history.data.versions.map((v) => (
              <li key={v.version} className="flex flex-wrap items-center gap-2 text-xs">
                <button type="button" className="font-medium text-indigo-700 hover:underline disabled:text-slate-500 disabled:no-underline" disabled={v.deleted} onClick={() => props.onVersion(v.version === latest ? null : v.version)}>
                  Version {v.version}
                </button>
                <span className="text-slate-500">
                  {v.deleted ? "deleted" : formatSize(v.size)} · {v.restoredBy ? "restored by a person" : "written by a run"} · <Time at={v.at} />
                </span>
                {props.canManage && !v.deleted && v.version !== latest ? (
                  <button type="button" className="ml-auto text-indigo-700 hover:underline" disabled={restore.isPending} onClick={() => restore.mutate(v.version)}>
                    Restore
                  </button>
                ) : null}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      {restore.isError ? <ErrorNotice error={restore.error} fallback="The version could not be restored." /> : null}
    </article>
  );
}

/** What changed in a file from an earlier version to the one shown, as a diff, fetched when opened. */
function ChangesSince({ agentId, path, version, previous, text }: { agentId: string; path: string; version: number; previous: number; text: string }) {
  const { slug } = useWorkspace();
  const [open, setOpen] = useState(false);
  const before = useQuery({
    queryKey: agentKeys.file(slug, agentId, path, previous),
    enabled: open,
    queryFn: async () => {
      const response = await fetch(agentFileUrl(slug, agentId, path, previous), { credentials: "same-origin" });
      if (!response.ok) throw new Error("The earlier version could not be read.");
      return (response.headers.get("content-type") ?? "").startsWith("text/") ? await response.text() : null;
    },
  });
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-sm text-slate-600">
        Changes from version {previous} to version {version}
      </summary>
      {before.isError ? <p className="text-sm text-rose-700">{(before.error as Error).message}</p> : null}
      {before.data === null ? <p className="text-sm text-slate-600">Version {previous} is not text.</p> : null}
      {typeof before.data === "string" ? (
        <DiffBlock diff={createTwoFilesPatch(`a/${path}`, `b/${path}`, before.data, text, `version ${previous}`, `version ${version}`, { context: 3 })} label="What changed" />
      ) : null}
    </details>
  );
}
