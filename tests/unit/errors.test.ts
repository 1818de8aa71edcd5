import { describe, expect, it } from "vitest";
import { AppError, pgErrorCode } from "../../lib/errors";
import { toAppError } from "../../lib/http/errors";

describe("AppError", () => {
  it.each([
    ["bad_request:body", 400],
    ["unauthorized:session", 401],
    ["forbidden:workspace", 403],
    ["not_found:approval", 404],
    ["conflict:approval", 409],
    ["unprocessable:tool_input", 422],
    ["rate_limited:model", 429],
    ["unavailable:database", 503],
  ] as const)("%s maps to HTTP %i", (code, status) => {
    expect(new AppError(code).status).toBe(status);
  });

  it("round-trips through JSON the way the browser rebuilds it", () => {
    const original = new AppError("conflict:approval", "Already decided", { details: { by: "rita" } });
    const rebuilt = AppError.fromBody(JSON.parse(JSON.stringify(original)), 409);
    expect(rebuilt).toBeInstanceOf(AppError);
    expect(rebuilt.code).toBe("conflict:approval");
    expect(rebuilt.message).toBe("Already decided");
    expect(rebuilt.details).toEqual({ by: "rita" });
    expect(rebuilt.status).toBe(409);
  });

  it("rebuilds a body without a code as a generic error of the right kind", () => {
    expect(AppError.fromBody("<html>", 502).code).toBe("internal:response");
    expect(AppError.fromBody({}, 404).code).toBe("bad_request:response");
  });

  it("reads the Postgres code through Drizzle's wrapper", () => {
    const wrapped = new Error("Failed query", { cause: Object.assign(new Error("duplicate key"), { code: "23505" }) });
    expect(pgErrorCode(wrapped)).toBe("23505");
    expect(pgErrorCode(new Error("plain"))).toBeUndefined();
  });
});

describe("toAppError", () => {
  it("keeps an AppError as it is, never re-wrapping its code", () => {
    const error = new AppError("not_found:member");
    expect(toAppError(error)).toBe(error);
  });

  it("reports an unreachable database as 503, not as a bad request", () => {
    const refused = new Error("Failed query", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) });
    expect(toAppError(refused).code).toBe("unavailable:database");
    const adminShutdown = new Error("Failed query", { cause: Object.assign(new Error("terminating"), { code: "57P01" }) });
    expect(toAppError(adminShutdown).status).toBe(503);
  });

  it("hides the detail of an unexpected error behind internal:server", () => {
    const original = console.error;
    console.error = () => {};
    try {
      const result = toAppError(new Error("password=hunter2 leaked"));
      expect(result.code).toBe("internal:server");
      expect(result.message).not.toContain("hunter2");
    } finally {
      console.error = original;
    }
  });
});
