/** The ranges the talk matrix counts over; the feed keeps the chosen one in its address. */
export const matrixRanges = {
  "24h": { label: "24 h", hours: 24, text: "the last 24 hours" },
  "7d": { label: "7 d", hours: 24 * 7, text: "the last 7 days" },
  "30d": { label: "30 d", hours: 24 * 30, text: "the last 30 days" },
} as const;
export type MatrixRange = keyof typeof matrixRanges;
