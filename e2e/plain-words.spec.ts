import { expect, test } from "@playwright/test";
import { codesOnScreen } from "./pages/plain-words";

// Every page is walked for codes by phone.spec.ts, at each width, in both themes; this checks the check itself.
test("the plain-words check finds a code in visible text, and passes code blocks, hidden text and what a person typed", async ({ page }) => {
  await page.setContent(
    `<main><p>Waiting: tainted_egress</p><p>Failed with unprocessable:budget_exceeded</p><p>untrusted content (web:127.0.0.1)</p><code>reads_external</code><p hidden>sends_internal</p>` +
      `<div data-exact>{"category": "code_exec"}</div><input value="data_write"><p>Open https://example.com/a_b:c_d at 14:02</p></main>`,
  );
  expect((await codesOnScreen(page)).map((c) => c.split(" ")[0])).toEqual(["tainted_egress", "unprocessable:budget_exceeded", "web:127.0.0.1"]);
});
