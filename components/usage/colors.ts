/** Colours for the groups of a chart: an agent keeps its own colour; anything else gets a stable one from its key. */
export const chartPalette = ["#6366f1", "#0ea5e9", "#10b981", "#f59e0b", "#ec4899", "#8b5cf6", "#14b8a6", "#ef4444", "#84cc16", "#a855f7"];
export const OTHER_COLOR = "#94a3b8";

/** A stable index from a key (FNV-1a), so a group keeps its colour across ranges and reloads. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * One colour per row key: the row's own (an agent's) when no earlier row took
 * it, else the key's stable palette colour, else the next free one, so two
 * groups never share a colour in one chart. `otherKey` is grey.
 */
export function seriesColors(rows: { key: string; color?: string }[], otherKey: string): Map<string, string> {
  const colors = new Map<string, string>([[otherKey, OTHER_COLOR]]);
  const taken = new Set<string>([OTHER_COLOR]);
  for (const row of rows) {
    let color = row.color && !taken.has(row.color.toLowerCase()) ? row.color.toLowerCase() : undefined;
    if (!color) {
      const start = hash(row.key) % chartPalette.length;
      for (let i = 0; i < chartPalette.length && !color; i++) {
        const candidate = chartPalette[(start + i) % chartPalette.length]!;
        if (!taken.has(candidate)) color = candidate;
      }
    }
    color ??= chartPalette[hash(row.key) % chartPalette.length]!;
    colors.set(row.key, color);
    taken.add(color);
  }
  return colors;
}
