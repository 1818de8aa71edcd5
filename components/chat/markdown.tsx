"use client";

import { memo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

/**
 * Markdown as agents write it. Raw HTML is shown as the text it is (never
 * rendered), links open in a new tab without a referrer, and images are never
 * loaded: a reply can carry text from the web, and an image URL could carry
 * data out.
 */
const components: Components = {
  p: ({ node: _node, ...props }) => <p className="my-2 first:mt-0 last:mb-0" {...props} />,
  a: ({ node: _node, ...props }) => (
    <a className="font-medium text-indigo-700 underline decoration-indigo-300 underline-offset-2 hover:text-indigo-500" target="_blank" rel="noopener noreferrer nofollow" {...props} />
  ),
  ul: ({ node: _node, ...props }) => <ul className="my-2 list-disc space-y-1 pl-5" {...props} />,
  ol: ({ node: _node, ...props }) => <ol className="my-2 list-decimal space-y-1 pl-5" {...props} />,
  li: ({ node: _node, ...props }) => <li className="pl-0.5" {...props} />,
  h1: ({ node: _node, ...props }) => <h3 className="mt-3 mb-1 text-base font-semibold" {...props} />,
  h2: ({ node: _node, ...props }) => <h4 className="mt-3 mb-1 text-sm font-semibold" {...props} />,
  h3: ({ node: _node, ...props }) => <h5 className="mt-3 mb-1 text-sm font-semibold" {...props} />,
  h4: ({ node: _node, ...props }) => <h6 className="mt-2 mb-1 text-sm font-semibold" {...props} />,
  blockquote: ({ node: _node, ...props }) => <blockquote className="my-2 border-l-2 border-slate-300 pl-3 text-slate-600" {...props} />,
  hr: () => <hr className="my-3 border-slate-200" />,
  code: ({ node: _node, ...props }) => <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.8em] text-slate-800" {...props} />,
  pre: ({ node: _node, ...props }) => (
    <pre
      className="my-2 overflow-x-auto rounded-md bg-terminal p-3 font-mono text-xs leading-relaxed text-terminal-text [&>code]:bg-transparent [&>code]:p-0 [&>code]:text-inherit"
      {...props}
    />
  ),
  table: ({ node: _node, ...props }) => (
    <div className="my-2 overflow-x-auto">
      <table className="min-w-full border-collapse text-left text-xs" {...props} />
    </div>
  ),
  th: ({ node: _node, ...props }) => <th className="border-b border-slate-300 px-2 py-1 font-semibold" {...props} />,
  td: ({ node: _node, ...props }) => <td className="border-b border-slate-100 px-2 py-1 align-top" {...props} />,
  img: ({ src, alt }) => {
    const label = `[image${alt ? `: ${alt}` : ""}]`;
    if (typeof src !== "string" || !src) return <span className="text-slate-500">{label}</span>;
    return (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow" className="text-indigo-700 underline underline-offset-2" title="Images are not loaded; open it yourself">
        {label}
      </a>
    );
  },
};

type MdNode = { type: string; value?: string; url?: string; children?: MdNode[] };

/**
 * Raw HTML becomes plain text: an agent's `<placeholder>` or HTML snippet is
 * shown as written (escaped by React), also while a reply streams in and a
 * code span is not closed yet, instead of vanishing.
 */
export function remarkHtmlAsText() {
  const walk = (node: MdNode) => {
    if (node.type === "html") node.type = "text";
    node.children?.forEach(walk);
  };
  return (tree: MdNode) => walk(tree);
}

/** Closing quotes that end a sentence, not an address: “see https://x.test/a” quotes the address, it does not extend it. */
const CLOSING_QUOTES = /[”’»›"']+$/;

/**
 * A bare address written inside quotes (“https://example.com/a”) is taken by
 * GFM with its closing quote, which then leads nowhere: the quote goes back to
 * the text after the link. Links written as `[text](url)` are left as written.
 */
export function remarkLinkQuotes() {
  const walk = (node: MdNode) => {
    const children = node.children;
    if (!children) return;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      const label = child.type === "link" && child.children?.length === 1 && child.children[0]!.type === "text" ? child.children[0]! : null;
      const quotes = label?.value?.match(CLOSING_QUOTES)?.[0];
      if (label && quotes && child.url?.endsWith(label.value!)) {
        label.value = label.value!.slice(0, -quotes.length);
        child.url = child.url.slice(0, -quotes.length);
        children.splice(i + 1, 0, { type: "text", value: quotes });
      }
      walk(child);
    }
  };
  return (tree: MdNode) => walk(tree);
}

const remarkPlugins = [remarkGfm, remarkHtmlAsText, remarkLinkQuotes];

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="text-sm leading-relaxed break-words text-slate-800">
      <ReactMarkdown remarkPlugins={remarkPlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
