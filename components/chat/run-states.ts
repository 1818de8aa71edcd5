/** Run states in which the reply is still being written (its stored content is empty until the end). */
export const activeRunStates: ReadonlySet<string> = new Set(["running", "suspended"]);
