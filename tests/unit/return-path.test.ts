import { describe, expect, it } from "vitest";
import { safeReturnPath } from "../../lib/http/return-path";

describe("the path to return to after signing in", () => {
  it("keeps same-site paths such as an invitation link", () => {
    expect(safeReturnPath("/invite/abc_DEF-123")).toBe("/invite/abc_DEF-123");
    expect(safeReturnPath("/w/demo?tab=1")).toBe("/w/demo?tab=1");
  });

  it("sends anything that could leave the site to /", () => {
    for (const value of ["https://evil.test/", "//evil.test/x", "/\\evil.test", "javascript:alert(1)", "", undefined, 42, "x".repeat(600)]) {
      expect(safeReturnPath(value)).toBe("/");
    }
  });
});
