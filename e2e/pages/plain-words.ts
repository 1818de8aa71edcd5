import type { Page } from "@playwright/test";

/**
 * Codes a person should never have to read, in the page's visible text: `word:word` (error codes, taint sources) and
 * `snake_case` (effects, categories, states). Code blocks, the exact input and output of a call (`data-exact`), the
 * terminal, and what a person typed are exempt. Each is returned with the start of the text it was found in.
 */
export async function codesOnScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const exempt = "code, pre, kbd, samp, textarea, input, select, script, style, [data-exact], .xterm";
    const found = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(exempt) || !parent.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const text = (node.textContent ?? "").replace(/https?:\/\/\S+/g, " ");
      for (const match of text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b|\b[a-z_]+:[a-z0-9][\w.@-]*/g)) found.add(`${match[0]}  ← "${text.trim().slice(0, 80)}"`);
    }
    return [...found];
  });
}
