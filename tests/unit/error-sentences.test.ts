import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError, errorKinds } from "../../lib/errors";
import { errorWords, hasSentence, knownErrorCodes, sentenceFor } from "../../lib/error-sentences";

const root = path.resolve(__dirname, "../..");
const kinds = Object.keys(errorKinds).join("|");
/** A code written in the source: `kind:surface` at the start of a string literal. */
const codePattern = new RegExp(`["'\`]((?:${kinds}):[a-z][a-z0-9_]*)(?=["'\`])`, "g");
/** Codes the source builds rather than writes out: route input (`bad_request:${surface}`) and a body without a code (`<kind>:response`). */
const builtCodes = [...["params", "query", "body"].map((s) => `bad_request:${s}`), ...Object.keys(errorKinds).map((k) => `${k}:response`)];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) ? [full] : [];
  });
}

function codesInSource(): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of ["lib", "app", "components"]) {
    for (const file of sourceFiles(path.join(root, dir))) {
      if (file.endsWith(path.join("lib", "error-sentences.ts"))) continue;
      for (const match of readFileSync(file, "utf8").matchAll(codePattern)) found.set(match[1]!, path.relative(root, file));
    }
  }
  return found;
}

describe("the error sentences", () => {
  it("finds the codes the API answers with in the source (the scan itself works)", () => {
    const codes = codesInSource();
    expect(codes.get("not_found:approval")).toBeDefined();
    expect(codes.get("unprocessable:budget_exceeded")).toBeDefined();
    expect(codes.get("unprocessable:time_zone")).toMatch(/time-zone/);
    expect(codes.size).toBeGreaterThan(50);
  });

  it("has a sentence of its own for every code used in lib/, app/ and components/", () => {
    const missing = [...codesInSource()].filter(([code]) => !hasSentence(code)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it("has a sentence for every code the source builds", () => {
    expect(builtCodes.filter((code) => !hasSentence(code))).toEqual([]);
  });

  it("has no sentence for a code nothing uses any more", () => {
    const used = new Set([...codesInSource().keys(), ...builtCodes]);
    expect(knownErrorCodes.filter((code) => !used.has(code))).toEqual([]);
  });

  it("says each code in a sentence, not in code words", () => {
    for (const code of knownErrorCodes) {
      const sentence = sentenceFor(code);
      expect(sentence, code).toMatch(/^[A-Z].*[.]$/);
      expect(sentence, code).not.toMatch(/\b[a-z]+_[a-z_]+\b|:[a-z]/);
    }
  });

  it("falls back to the kind's sentence for a code it does not know", () => {
    expect(sentenceFor("conflict:something_new")).toBe(sentenceFor("conflict:response"));
    expect(sentenceFor("nonsense")).toBe(sentenceFor("internal:response"));
  });

  it("gives the sentence, the server's specifics and the code of an application error", () => {
    const words = errorWords(new AppError("unprocessable:budget_exceeded", "@scout has used its monthly budget."), "fallback");
    expect(words).toEqual({ sentence: sentenceFor("unprocessable:budget_exceeded"), detail: "@scout has used its monthly budget.", code: "unprocessable:budget_exceeded" });
    // A message that is only the kind's default adds nothing.
    expect(errorWords(new AppError("not_found:run"), "fallback")).toEqual({ sentence: sentenceFor("not_found:run"), code: "not_found:run" });
    // An internal error's message stays out of the interface.
    expect(errorWords(new AppError("internal:server", "stack at db.ts:12"), "fallback").detail).toBeUndefined();
    expect(errorWords(new Error("boom"), "Could not load.")).toEqual({ sentence: "Could not load." });
  });
});
