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
});
