import { describe, expect, it } from "vitest";
import { COMPRESS_FROM_BYTES, jsonResponse } from "@/lib/http/json";
import { errorResponse } from "@/lib/http/errors";
import { AppError } from "@/lib/errors";

describe("jsonResponse", () => {
  it("marks a body under 1 KB no-transform, keeping the caller's cache rule, so it is not compressed", async () => {
    const response = jsonResponse({ name: "Zoë 🚀" }, { status: 201, headers: { "Cache-Control": "no-store" } });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(await response.json()).toEqual({ name: "Zoë 🚀" });
    expect(jsonResponse({ ok: true }).headers.get("cache-control")).toBe("no-transform");
    expect(jsonResponse({ ok: true }, { headers: { "Cache-Control": "no-store, no-transform" } }).headers.get("cache-control")).toBe("no-store, no-transform");
  });

  it("counts bytes, not characters: a body of 1 KB or more (in UTF-8) may be compressed", async () => {
    const wide = "é".repeat(COMPRESS_FROM_BYTES / 2); // fewer characters than the threshold, twice as many bytes
    const large = jsonResponse({ wide }, { headers: { "Cache-Control": "no-store" } });
    expect(JSON.stringify({ wide }).length).toBeLessThan(COMPRESS_FROM_BYTES + 20);
    expect((await large.clone().arrayBuffer()).byteLength).toBeGreaterThanOrEqual(COMPRESS_FROM_BYTES);
    expect(large.headers.get("cache-control")).toBe("no-store");
    expect(await large.json()).toEqual({ wide });
  });

  it("is what error answers are built with", async () => {
    const response = errorResponse(new AppError("not_found:run"));
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
    expect((await response.json()).code).toBe("not_found:run");
  });
});
