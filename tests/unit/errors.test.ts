import { describe, expect, it } from "vitest";
import { AppError, errorMessage, isAppError, pgErrorCode, streamErrorFromData } from "../../lib/errors";
import { errorResponse, toAppError } from "../../lib/http/errors";
import { ModelError, modelErrorCode } from "../../lib/models/types";

/** What a copy of AppError from another server bundle looks like: the same brand, another prototype. */
function appErrorFromAnotherBundle(code: string, message: string) {
  class AppError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
      Object.defineProperty(this, Symbol.for("clawdeck.AppError"), { value: true });
    }
  }
  return new AppError(code, message);
}

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
    expect(AppError.fromCode(code).status).toBe(status);
  });

  it("takes only codes of the closed list: a typo fails the typecheck, a code read from an answer goes through fromCode", () => {
    // @ts-expect-error `aproval` is no surface: the typecheck refuses it (and fails on this line if it ever stopped).
    const typo = new AppError("not_found:aproval");
    expect(typo.status).toBe(404);
    expect(AppError.fromCode("not_found:something_newer").code).toBe("not_found:something_newer");
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
    expect(AppError.fromBody({}, 422).code).toBe("unprocessable:response");
    expect(AppError.fromBody({}, 418).code).toBe("bad_request:response");
  });

  it("keeps the 404 of a body without a code as not_found, not as a bad request", () => {
    const rebuilt = AppError.fromBody({ error: "missing" }, 404);
    expect(rebuilt.code).toBe("not_found:response");
    expect(rebuilt.status).toBe(404);
  });

  it("does not trust a body whose code has an unknown kind", () => {
    expect(AppError.fromBody({ code: "model:provider_overloaded", message: "x" }, 503).code).toBe("unavailable:response");
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

describe("isAppError", () => {
  it("recognises an AppError made by another bundle's copy of the class, which instanceof misses", () => {
    const foreign = appErrorFromAnotherBundle("conflict:run", "This run has already finished.");
    expect(foreign instanceof AppError).toBe(false);
    expect(isAppError(foreign)).toBe(true);
    expect(errorMessage(foreign, "fallback")).toBe("This run has already finished.");
  });

  it("answers the foreign error's own status and code through the route error path", async () => {
    const response = errorResponse(appErrorFromAnotherBundle("conflict:run", "This run has already finished."));
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ code: "conflict:run", message: "This run has already finished." });
  });

  it("refuses plain errors, look-alikes without the brand, and branded objects with an unknown kind", () => {
    expect(isAppError(new Error("conflict:run"))).toBe(false);
    expect(isAppError({ code: "conflict:run", message: "no brand" })).toBe(false);
    expect(isAppError(appErrorFromAnotherBundle("model:overloaded", "bad kind"))).toBe(false);
    expect(isAppError(null)).toBe(false);
    expect(errorMessage(new Error("secret detail"), "Could not save.")).toBe("Could not save.");
  });
});

describe("model failures", () => {
  it.each([
    ["provider_overloaded", "unavailable:model_overloaded", 503],
    ["provider_rate_limited", "rate_limited:model_rate_limited", 429],
    ["provider_rejected", "unprocessable:model_rejected", 422],
    ["bad_tool_input", "unprocessable:model_bad_tool_input", 422],
  ] as const)("a provider's %s is stored as %s, a code of a known kind", (reason, code, status) => {
    const mapped = modelErrorCode(new ModelError("failed", reason));
    expect(mapped).toBe(code);
    expect(AppError.fromCode(mapped).status).toBe(status);
  });
});

describe("stream_error frames", () => {
  it("rebuilds the error a stream_error frame carries, and a generic one from garbage", () => {
    expect(streamErrorFromData(JSON.stringify({ code: "unavailable:stream", message: "The event stream was interrupted." })).message).toBe(
      "The event stream was interrupted.",
    );
    expect(streamErrorFromData("not json").code).toBe("unavailable:response");
  });
});
