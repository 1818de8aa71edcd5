import { fromMarkdown } from "mdast-util-from-markdown";
import { truncate } from "./text";

type MdNode = { type: string; value?: string; alt?: string | null; children?: MdNode[] };

/** Inline nodes run on in a sentence; every other node (paragraph, heading, list item, cell…) is set apart by a space. */
const INLINE = new Set(["text", "emphasis", "strong", "delete", "inlineCode", "link", "linkReference", "image", "imageReference", "break"]);

/** How much of a text is parsed, per character of the preview: markup takes room, and parsing stays cheap on any input. */
const PARSE_PER_CHAR = 4;

/**
 * A short plain-text preview of what an agent wrote in markdown (a handoff,
 * a mission's result in the feed): the words without the markup (`**`, `#`,
 * backticks, link targets), blocks joined by spaces, cut to `max` characters.
 * Raw HTML is kept as the characters it is (a `<placeholder>` stays).
 */
export function plainPreview(markdown: string, max = 200): string {
  const parts: string[] = [];
  const walk = (node: MdNode) => {
    if (node.type === "text" || node.type === "inlineCode" || node.type === "code" || node.type === "html") parts.push(node.value ?? "");
    else if (node.type === "image" && node.alt) parts.push(node.alt);
    else if (node.type === "break") parts.push(" ");
    for (const child of node.children ?? []) walk(child);
    if (!INLINE.has(node.type)) parts.push(" ");
  };
  walk(fromMarkdown(truncate(markdown, max * PARSE_PER_CHAR)) as MdNode);
  return truncate(parts.join("").replace(/\s+/g, " ").trim(), max, "…");
}
