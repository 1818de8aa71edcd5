import { describe, expect, it } from "vitest";
import { isText, lineCounts } from "../../lib/computers/computers";
import { folderEntries, formatBytes } from "../../lib/computers/files";
import { MAX_DEPTH, MAX_PATH_CHARS, normalisePath, PathError } from "../../lib/computers/paths";

const problemOf = (path: string, options?: { allowRoot?: boolean }) => {
  try {
    normalisePath(path, options);
    return null;
  } catch (error) {
    return error instanceof PathError ? error.problem : "not a path error";
  }
};

describe("paths in an agent's computer", () => {
  it.each([
    ["notes.md", "notes.md"],
    ["./a//b/", "a/b"],
    ["a/./b/../c.txt", "a/c.txt"],
    ["/workspace/src/app.py", "src/app.py"],
    ["  spaced name.txt ", "spaced name.txt"],
    ["émoji 🙂/файл.txt", "émoji 🙂/файл.txt"],
  ])("%j is %j", (input, expected) => {
    expect(normalisePath(input)).toBe(expected);
  });

  it.each([
    ["../secret", "leaves_workspace"],
    ["a/../../etc/passwd", "leaves_workspace"],
    ["/etc/passwd", "absolute"],
    ["/workspacex/a", "absolute"],
    ["~/.ssh/id_rsa", "absolute"],
    ["C:\\\\Windows", "absolute"],
    ["a\u0000b", "control_character"],
    ["line\nbreak", "control_character"],
    ["a\u2028b", "control_character"],
    ["", "empty"],
    ["./", "empty"],
    ["x".repeat(MAX_PATH_CHARS + 1), "too_long"],
    [`${"x".repeat(256)}/a`, "segment_too_long"],
    [Array.from({ length: MAX_DEPTH + 1 }, () => "d").join("/"), "too_deep"],
  ])("refuses %j (%s)", (input, problem) => {
    expect(problemOf(input)).toBe(problem);
  });

  it("takes the root only where a folder is asked for, and says each refusal in a sentence", () => {
    expect(normalisePath("", { allowRoot: true })).toBe("");
    expect(normalisePath("/workspace", { allowRoot: true })).toBe("");
    expect(() => normalisePath("../x")).toThrow('The path "../x" leads outside the workspace.');
    expect(() => normalisePath("a\u0000")).toThrow("The path contains a NUL or another control character.");
  });
});

describe("a folder's entries", () => {
  const at = new Date("2026-12-01T00:00:00Z");
  const file = (path: string, size: number, version = 1) => ({ path, size, version, sha256: "x", runId: null, taint: [], privateTo: null, updatedAt: at });

  it("lists files and the folders below, folders first, with the bytes they hold", () => {
    const files = [file("b.txt", 3), file("src/a.py", 10, 2), file("src/lib/b.py", 5), file("a.txt", 1)];
    expect(folderEntries(files, "").map((e) => [e.path, e.kind, e.size, e.version])).toEqual([
      ["src", "folder", 15, null],
      ["a.txt", "file", 1, 1],
      ["b.txt", "file", 3, 1],
    ]);
    expect(folderEntries(files, "src").map((e) => [e.path, e.kind])).toEqual([
      ["src/lib", "folder"],
      ["src/a.py", "file"],
    ]);
    expect(folderEntries(files, "srcx")).toEqual([]);
  });
});

describe("what a change did to a file", () => {
  it("counts lines added and removed, and none for data that is not text", () => {
    expect(lineCounts(null, Buffer.from("a\nb\n"))).toEqual({ added: 2, removed: 0 });
    expect(lineCounts(Buffer.from("a\nb\nc\n"), Buffer.from("a\nB\nc\nd\n"))).toEqual({ added: 2, removed: 1 });
    expect(lineCounts(Buffer.from("a\n"), null)).toEqual({ added: 0, removed: 1 });
    expect(lineCounts(Buffer.from([0x89, 0x50, 0x00]), Buffer.from("x"))).toEqual({ added: null, removed: null });
    expect(isText(Buffer.from("héllo"))).toBe(true);
    expect(isText(Buffer.from([0xff, 0xfe, 0x41]))).toBe(false);
    expect(formatBytes(10 * 1024 * 1024)).toBe("10 MB");
    expect(formatBytes(1536)).toBe("1.5 kB");
  });
});
