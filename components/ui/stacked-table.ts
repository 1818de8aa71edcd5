import { cn } from "./cn";

/**
 * Class names for a table that is a table from `sm` up and, on a phone, a stack of cards: each row a card, each
 * cell a line that reads "label … value", with the label taken from the cell's `data-label` (its column's header,
 * which is hidden there). One set of elements serves both, so every control exists once and stays on the screen
 * without a box that scrolls sideways.
 */
export const stacked = {
  table: "block w-full text-sm sm:table",
  head: "hidden bg-slate-50 text-left text-xs tracking-wide text-slate-500 uppercase sm:table-header-group",
  body: "block divide-y divide-slate-100 sm:table-row-group",
  row: "block py-2 sm:table-row sm:py-0",
  /** The cell that names the row: its heading on a phone. */
  title: "block px-4 py-1 sm:table-cell sm:py-2",
} as const;

/**
 * A cell with a `data-label`: a "label … value" line on a phone. Empty cells (no control to show) leave no line.
 * `tight` rows (a table of inputs) are less padded on wider screens.
 */
export function stackedCell({ align = "left", tight = false, className }: { align?: "left" | "right"; tight?: boolean; className?: string } = {}) {
  return cn(
    "flex items-center justify-between gap-3 px-4 py-1 text-right max-sm:empty:hidden",
    "before:text-left before:text-xs before:font-medium before:text-slate-500 before:content-[attr(data-label)]",
    "sm:table-cell sm:before:content-none",
    tight ? "sm:py-1.5" : "sm:py-2",
    align === "right" ? "sm:text-right" : "sm:text-left",
    className,
  );
}
