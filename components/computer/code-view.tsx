"use client";

import { useEffect, useState } from "react";
import { Markdown } from "../markdown/lazy-markdown";

type Highlighter = typeof import("highlight.js/lib/core").default;

/** Languages by file extension: the ones agents write most. */
const LANGUAGES: Record<string, string> = {
  py: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  tsx: "typescript",
  json: "json",
  sh: "bash",
  bash: "bash",
  yml: "yaml",
  yaml: "yaml",
  css: "css",
  html: "xml",
  xml: "xml",
  svg: "xml",
  sql: "sql",
  go: "go",
  rs: "rust",
  rb: "ruby",
  java: "java",
  c: "c",
  h: "c",
  cpp: "cpp",
  toml: "ini",
  ini: "ini",
};

let loading: Promise<Highlighter> | null = null;
/** highlight.js with those languages, loaded once, after the page. */
function loadHighlighter(): Promise<Highlighter> {
  loading ??= (async () => {
    const hljs = (await import("highlight.js/lib/core")).default;
    const languages = {
      python: import("highlight.js/lib/languages/python"),
      javascript: import("highlight.js/lib/languages/javascript"),
      typescript: import("highlight.js/lib/languages/typescript"),
      json: import("highlight.js/lib/languages/json"),
      bash: import("highlight.js/lib/languages/bash"),
      yaml: import("highlight.js/lib/languages/yaml"),
      css: import("highlight.js/lib/languages/css"),
      xml: import("highlight.js/lib/languages/xml"),
      sql: import("highlight.js/lib/languages/sql"),
      go: import("highlight.js/lib/languages/go"),
      rust: import("highlight.js/lib/languages/rust"),
      ruby: import("highlight.js/lib/languages/ruby"),
      java: import("highlight.js/lib/languages/java"),
      c: import("highlight.js/lib/languages/c"),
      cpp: import("highlight.js/lib/languages/cpp"),
      ini: import("highlight.js/lib/languages/ini"),
    };
    for (const [name, module] of Object.entries(languages)) hljs.registerLanguage(name, (await module).default);
    return hljs;
  })();
  return loading;
}

const extensionOf = (path: string) => /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";

/** Highlighted markup of `text` (highlight.js escapes the text; its markup is spans with classes), once loaded. */
function useHighlighted(text: string, language: string | undefined): string | null {
  const [html, setHtml] = useState<{ text: string; html: string } | null>(null);
  useEffect(() => {
    if (!language || text.length > 200_000) return;
    let live = true;
    void loadHighlighter().then((hljs) => {
      if (live) setHtml({ text, html: hljs.highlight(text, { language, ignoreIllegals: true }).value });
    });
    return () => {
      live = false;
    };
  }, [text, language]);
  return html && html.text === text ? html.html : null;
}

const box = "max-h-96 overflow-auto rounded bg-surface p-2 ring-1 ring-slate-200";

/**
 * A text file of an agent as a person reads it: Markdown rendered (its source a click away), code highlighted by its
 * extension, anything else as plain text.
 */
export function CodeView({ path, text }: { path: string; text: string }) {
  const extension = extensionOf(path);
  const [source, setSource] = useState(false);
  const highlighted = useHighlighted(text, LANGUAGES[extension]);
  if ((extension === "md" || extension === "markdown") && !source) {
    return (
      <div className="space-y-1">
        <div className={`${box} text-sm`} tabIndex={0} role="region" aria-label={`Contents of ${path}`}>
          <Markdown text={text} />
        </div>
        <button type="button" className="text-xs text-indigo-700 hover:underline" onClick={() => setSource(true)}>
          Show the Markdown source
        </button>
      </div>
    );
  }
  return (
    <pre className={`code-view ${box} font-mono text-xs leading-snug`} tabIndex={0} aria-label={`Contents of ${path}`}>
      {highlighted === null ? text : <code dangerouslySetInnerHTML={{ __html: highlighted }} />}
    </pre>
  );
}
