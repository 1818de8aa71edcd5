import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "@/components/chat/markdown";

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe("markdown as agents write it", () => {
  it("shows raw HTML as the text it is, never as markup", () => {
    const out = html('Use `tell @<handle> <text>` or <b onclick="x()">bold</b> <script>alert(1)</script>');
    expect(out).toContain("<code");
    expect(out).toContain("tell @&lt;handle&gt; &lt;text&gt;");
    expect(out).toContain("&lt;b onclick=&quot;x()&quot;&gt;");
    expect(out).toContain("&lt;script&gt;");
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<b ");
  });

  it("keeps a placeholder visible while a code span is not closed yet (a reply still streaming)", () => {
    expect(html("- `tell @<handle> <te")).toContain("@&lt;handle&gt;");
  });

  it("still formats markdown: emphasis, lists and links (new tab, no referrer)", () => {
    const out = html("**bold** and [docs](https://example.com)\n\n- one");
    expect(out).toContain("<strong>bold</strong>");
    expect(out).toMatch(/<a [^>]*rel="noopener noreferrer nofollow"[^>]*href="https:\/\/example.com"/);
    expect(out).toContain("<li");
  });

  it("leaves a closing quote after a bare address in the text, not in the link", () => {
    expect(html("It begins: “see https://example.com/a”.")).toContain('href="https://example.com/a">https://example.com/a</a>”.');
    expect(html("Open 'https://example.com/b' now")).toContain('href="https://example.com/b">https://example.com/b</a>&#x27; now');
    expect(html('a "www.example.com/c" b')).toContain('href="http://www.example.com/c">www.example.com/c</a>&quot; b');
    // A link written with its own text keeps its address as written.
    expect(html("[the page](https://example.com/d”)")).toContain('href="https://example.com/d%E2%80%9D"');
  });
});
