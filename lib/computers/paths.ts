/**
 * Paths inside an agent's computer. Every path a tool or a person names is
 * normalised here before anything reads or writes: relative to the
 * workspace's root, with `/` separators, no `.` or `..` segments, no NUL or
 * other control characters, no leading `/`, at most `MAX_PATH_CHARS`
 * characters and `MAX_DEPTH` folders deep. A path that would leave the
 * workspace is refused, never clamped: the caller says why.
 */

export const MAX_PATH_CHARS = 1_024;
export const MAX_SEGMENT_CHARS = 255;
export const MAX_DEPTH = 32;

export type PathProblem = "empty" | "too_long" | "control_character" | "absolute" | "leaves_workspace" | "segment_too_long" | "too_deep";

export class PathError extends Error {
  constructor(
    readonly problem: PathProblem,
    readonly path: string,
  ) {
    super(pathProblemSentence(problem, path));
    this.name = "PathError";
  }
}

/** What is wrong with a path, as a sentence a person (or a model) can act on. */
export function pathProblemSentence(problem: PathProblem, path: string): string {
  const shown = path.length > 80 ? `${path.slice(0, 77)}…` : path;
  switch (problem) {
    case "empty":
      return "The path is empty: name a file or folder inside the workspace.";
    case "too_long":
      return `The path is longer than ${MAX_PATH_CHARS} characters.`;
    case "control_character":
      return "The path contains a NUL or another control character.";
    case "absolute":
      return `The path "${shown}" is absolute: paths are relative to the workspace, as in "notes/plan.md".`;
    case "leaves_workspace":
      return `The path "${shown}" leads outside the workspace.`;
    case "segment_too_long":
      return `A name in the path "${shown}" is longer than ${MAX_SEGMENT_CHARS} characters.`;
    case "too_deep":
      return `The path "${shown}" is more than ${MAX_DEPTH} folders deep.`;
  }
}

// C0 and C1 control characters, DEL, and the line and paragraph separators: none belongs in a file name.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * The workspace-relative form of `input` ("" for the root when `allowRoot`).
 * `./a//b/` becomes `a/b`; `a/../b` becomes `b`; `../x`, `/etc/passwd` and
 * `a/../../x` are refused. A leading `/workspace/` (where the sandbox mounts
 * the workspace) is accepted and removed, so a path a command printed can be
 * given back as it is.
 */
export function normalisePath(input: string, options: { allowRoot?: boolean } = {}): string {
  if (input.length > MAX_PATH_CHARS) throw new PathError("too_long", input);
  if (CONTROL.test(input)) throw new PathError("control_character", input);
  let path = input.trim();
  if (path === "/workspace" || path.startsWith("/workspace/")) path = path.slice("/workspace".length);
  else if (path.startsWith("/") || path.startsWith("\\") || /^[a-zA-Z]:[\\/]/.test(path) || path.startsWith("~")) throw new PathError("absolute", input);
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) throw new PathError("leaves_workspace", input);
      segments.pop();
      continue;
    }
    if (segment.length > MAX_SEGMENT_CHARS) throw new PathError("segment_too_long", input);
    segments.push(segment);
  }
  if (segments.length > MAX_DEPTH) throw new PathError("too_deep", input);
  const normal = segments.join("/");
  if (!normal && !options.allowRoot) throw new PathError("empty", input);
  return normal;
}

/** Whether `path` is `folder` itself or inside it (both normalised; "" is the root). */
export function isInside(path: string, folder: string): boolean {
  return folder === "" || path === folder || path.startsWith(`${folder}/`);
}

/** The folders that hold `path`, outermost first (`a/b/c.txt` → `a`, `a/b`). */
export function parentFolders(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}
