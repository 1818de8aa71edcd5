import { describe, expect, it } from "vitest";
import { taintLabel } from "../../lib/safety/taint";

describe("a taint source in words", () => {
  it("says what was read, from where, instead of the source's code", () => {
    expect(taintLabel("web:example.com")).toBe("Read a web page on example.com");
    expect(taintLabel("agent:atlas")).toBe("Read a message from @atlas");
    expect(taintLabel("door:laptop")).toBe("Came through the door token “laptop”");
    // A source of a kind this version does not know keeps its code, said as untrusted.
    expect(taintLabel("mail:inbox")).toBe("Untrusted content (mail:inbox)");
  });
});
