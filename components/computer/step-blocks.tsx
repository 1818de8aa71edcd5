"use client";

import { FileText } from "lucide-react";
import { useWorkspace } from "../providers";

/** The file content route of an agent's file at a version, as a link or an image source. */
export function agentFileUrl(slug: string, agentId: string, path: string, version: number | null): string {
  return `/api/agents/${agentId}/files/content?path=${encodeURIComponent(path)}${version ? `&version=${version}` : ""}&workspace=${encodeURIComponent(slug)}`;
}

interface BrowserShot {
  url: string;
  title: string;
  screenshotPath: string;
  screenshotVersion: number | null;
}

export function browserShotOf(output: unknown): BrowserShot | null {
  const o = output as Partial<BrowserShot> | null;
  return o && typeof o.url === "string" && typeof o.screenshotPath === "string"
    ? { url: o.url, title: typeof o.title === "string" ? o.title : "", screenshotPath: o.screenshotPath, screenshotVersion: typeof o.screenshotVersion === "number" ? o.screenshotVersion : null }
    : null;
}

/** What the agent's browser showed after a step: the page's address and title, and its screenshot (opens full size). */
export function BrowserBlock({ agentId, shot }: { agentId: string; shot: BrowserShot }) {
  const { slug } = useWorkspace();
  const src = agentFileUrl(slug, agentId, shot.screenshotPath, shot.screenshotVersion);
  return (
    <figure className="border-t border-slate-200 px-3 py-2" data-testid="browser-block">
      <a href={src} target="_blank" rel="noopener" className="block w-full max-w-sm overflow-hidden rounded ring-1 ring-slate-200">
        {/* A screenshot from the agent's files: its size is known only once loaded. */}
        {/* eslint-disable-next-line @next/next/no-img-element */}
        <img src={src} alt={`Screenshot of ${shot.title || shot.url}`} className="block h-auto w-full" loading="lazy" />
      </a>
      <figcaption className="mt-1 text-xs break-all text-slate-600">
        {shot.title ? <span className="font-medium text-slate-800">{shot.title} · </span> : null}
        <span className="font-mono">{shot.url}</span>
      </figcaption>
    </figure>
  );
}

/** A file an agent read or wrote in a step: opens that version of it. */
export function FileChip({ agentId, path, version, change }: { agentId: string; path: string; version: number; change?: string }) {
  const { slug } = useWorkspace();
  return (
    <p className="border-t border-slate-200 px-3 py-2 text-xs">
      <a
        href={agentFileUrl(slug, agentId, path, version)}
        target="_blank"
        rel="noopener"
        className="inline-flex max-w-full items-center gap-1.5 rounded-full bg-surface px-2.5 py-1 font-mono text-slate-800 ring-1 ring-slate-200 hover:ring-indigo-300"
        data-testid="file-chip"
      >
        <FileText aria-hidden className="h-3.5 w-3.5 shrink-0 text-slate-500" />
        <span className="truncate">{path}</span>
        <span className="font-sans text-slate-500">
          version {version}
          {change && change !== "unchanged" ? ` · ${change}` : ""}
        </span>
      </a>
    </p>
  );
}

/** The file a files.read or files.write step left, if it left one that can be opened. */
export function fileOf(tool: string, output: unknown): { path: string; version: number; change?: string } | null {
  if (tool !== "files.read" && tool !== "files.write") return null;
  const o = output as { path?: unknown; version?: unknown; change?: unknown } | null;
  return o && typeof o.path === "string" && typeof o.version === "number"
    ? { path: o.path, version: o.version, change: typeof o.change === "string" ? o.change : undefined }
    : null;
}
