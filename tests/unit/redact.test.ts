import { describe, expect, it } from "vitest";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { describeError } from "../../lib/log";
import { REDACTED, Redactor, redactText, redactValue, rememberSecret, trackCredentials } from "../../lib/secret-redactor";

const token = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp";
const key = "k3y/with+odd=chars&more?";

describe("the redactor", () => {
  it("removes a secret quoted raw in an error message", () => {
    const out = redactText(`Headers.append: "Bearer ${key}" is an invalid header value.`, [key]);
    expect(out).toBe(`Headers.append: "Bearer ${REDACTED}" is an invalid header value.`);
  });

  it("removes the URL-encoded form", () => {
    const out = redactText(`GET https://x.test/?token=${encodeURIComponent(key)}&a=1`, [key]);
    expect(out).not.toContain(encodeURIComponent(key));
    expect(out).toContain(`token=${REDACTED}&a=1`);
  });

  it("removes the base64 forms (standard, unpadded and URL-safe)", () => {
    const standard = Buffer.from(key).toString("base64");
    const urlSafe = Buffer.from(key).toString("base64url");
    const out = redactText(`a=${standard} b=${urlSafe}`, [key]);
    expect(out).not.toContain(standard.replace(/=+$/, ""));
    expect(out).not.toContain(urlSafe);
  });

  it.each(["u", "us", "use", "user"])("removes the secret inside a Basic credential for the user %j", (user) => {
    const basic = Buffer.from(`${user}:${token}`).toString("base64");
    const out = redactText(`Authorization: Basic ${basic}`, [token]);
    // What is left cannot be decoded back to the token or to most of it.
    const left = out.replace("Authorization: Basic ", "").split(REDACTED).join("");
    expect(Buffer.from(left, "base64").toString("latin1")).not.toContain(token.slice(0, 12));
    expect(out).toContain(REDACTED);
  });

  it("removes the JSON-escaped form of a secret with quotes and backslashes", () => {
    const odd = 'p"ss\\word-123';
    const out = JSON.stringify({ echoed: odd });
    expect(redactText(out, [odd])).toBe(`{"echoed":"${REDACTED}"}`);
  });

  it("walks nested JSON output: strings in arrays and objects, and keys", () => {
    const output = {
      ok: false,
      status: 401,
      detail: { headers: [`authorization: Bearer ${token}`, "accept: */*"], [token]: "as a key" },
      encoded: [{ deep: { deeper: Buffer.from(token).toString("base64") } }],
    };
    const out = redactValue(output, [token]);
    expect(JSON.stringify(out)).not.toContain(token);
    expect(JSON.stringify(out)).not.toContain(Buffer.from(token).toString("base64").replace(/=+$/, ""));
    expect(out.status).toBe(401);
    expect(out.ok).toBe(false);
    expect(out.detail.headers[1]).toBe("accept: */*");
  });

  it("leaves text alone when no secret is in it, and ignores values too short to be secrets", () => {
    const text = "Slack refused the message: channel_not_found";
    expect(redactText(text, [key, "abc", ""])).toBe(text);
    expect(redactText("the word abc stays", ["abc"])).toBe("the word abc stays");
  });

  it("removes Slack-shaped tokens it was not given", () => {
    expect(redactText("leaked xoxb-111-222-abcdefgh in a page", [])).toBe(`leaked ${REDACTED} in a page`);
  });

  it("redacts the longer form first so no tail of a secret is left behind", () => {
    const r = new Redactor([key, key.slice(0, 10)]);
    expect(r.text(`x ${key} y`)).toBe(`x ${REDACTED} y`);
  });

  it("records every credential an accessor hands out", async () => {
    const tracked = trackCredentials(async (provider: string) => (provider === "slack" ? { secret: token, config: {} } : null));
    expect(await tracked.credential("none")).toBeNull();
    expect(await tracked.credential("slack")).toEqual({ secret: token, config: {} });
    expect(tracked.used()).toEqual([token]);
  });
});

describe("error summaries for logs", () => {
  it("show a failed query's SQL and pg code but never its parameters or the server's message", () => {
    const userText = "my private note about the merger";
    const pg = Object.assign(new Error(`invalid input syntax for type uuid: "${userText}"`), { code: "22P02", routine: "string_to_uuid" });
    const error = new DrizzleQueryError('select "id" from "memories" where "content" = $1', [userText], pg);
    const line = describeError(error);
    expect(line).toContain('failed query: select "id" from "memories" where "content" = $1');
    expect(line).toContain("pg 22P02");
    expect(line).not.toContain(userText);
  });

  it("scrub the secrets this process holds and those passed in", () => {
    const held = "held-secret-value-123";
    rememberSecret(held);
    const line = describeError(new Error(`bad header "Bearer ${token}" and ${held}`), [token]);
    expect(line).not.toContain(token);
    expect(line).not.toContain(held);
    expect(line).toContain("Error: bad header");
  });

  it("keep stack frames but not a multi-line message that only looks like one", () => {
    const error = new DrizzleQueryError("insert into notes values ($1)", ["x"], undefined);
    Object.assign(error, { message: "Failed query: insert into notes values ($1)\nparams: line one\n    at the lake house, key under the mat" });
    error.stack = `Error: ${error.message}\n    at insertNote (notes.ts:1:1)`;
    const out = describeError(error);
    expect(out).not.toContain("lake house");
    expect(out).toContain("at insertNote (notes.ts:1:1)");
  });

  it("cut a long message short (a parse error may quote the page it read)", () => {
    const page = "x".repeat(1000);
    expect(describeError(new SyntaxError(`Unexpected token in ${page}`)).split("\n")[0]!.length).toBeLessThan(400);
  });
});
