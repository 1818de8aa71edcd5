import { describe, expect, it } from "vitest";
import { htmlToText } from "../../lib/tools/http-fetch";

describe("htmlToText", () => {
  it("extracts the title and readable text", () => {
    const page = htmlToText(`<!doctype html><html><head><title> Tea &amp; Biscuits </title>
      <style>body { color: red }</style><script>var secret = "x";</script></head>
      <body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
      <h1>Brewing&nbsp;tea</h1><!-- hidden comment -->
      <p>Boil   water,
      then wait &#8212; patiently&#x21;</p><p>Use &lt;b&gt; tags? Write &amp;lt;b&amp;gt;.</p>
      <ul><li>Milk</li><li>Sugar</li></ul><noscript>Enable JS</noscript></body></html>`);
    expect(page.title).toBe("Tea & Biscuits");
    expect(page.text).toBe("Brewing tea\n\nBoil water, then wait — patiently!\n\nUse <b> tags? Write &lt;b&gt;.\n\nMilk\nSugar");
  });

  it("has no title when the page has none, and drops a tag cut off at the end", () => {
    expect(htmlToText("<p>One</p><p>Two</p><a href='/x")).toEqual({ text: "One\n\nTwo" });
  });
});
