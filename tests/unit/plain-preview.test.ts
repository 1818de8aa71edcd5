import { describe, expect, it } from "vitest";
import { plainPreview } from "@/lib/plain-preview";

describe("a plain preview of markdown", () => {
  it("keeps the words and drops the markup", () => {
    expect(plainPreview("**Lead** on “Plan a launch”.\n\n- From @scout: `ship` it\n- [Docs](https://example.com/docs) ready\n\n## Next\n> quoted")).toBe(
      "Lead on “Plan a launch”. From @scout: ship it Docs ready Next quoted",
    );
  });

  it("keeps raw HTML as the characters it is, so a placeholder stays", () => {
    expect(plainPreview("Use `tell @<handle> <text>` or tell @<handle> <text> now")).toBe("Use tell @<handle> <text> or tell @<handle> <text> now");
  });

  it("cuts a long text with an ellipsis and leaves short plain text as it is", () => {
    expect(plainPreview("word ".repeat(100), 20)).toBe("word word word word…");
    expect(plainPreview("Nothing to strip here")).toBe("Nothing to strip here");
  });
});
