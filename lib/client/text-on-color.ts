/**
 * The colour to write on a background of `color` (an agent's colour, `#rrggbb`):
 * white or near-black, whichever contrasts more (WCAG relative luminance), so
 * initials stay readable on a light agent colour as on a dark one.
 */
export const DARK_INK = "#111827";
export const LIGHT_INK = "#ffffff";

export function inkOn(color: string): string {
  const match = /^#([0-9a-f]{6})$/i.exec(color.trim());
  if (!match) return LIGHT_INK;
  const value = parseInt(match[1]!, 16);
  const luminance = relativeLuminance([(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]);
  return contrast(luminance, relativeLuminance([255, 255, 255])) >= contrast(luminance, relativeLuminance([0x11, 0x18, 0x27])) ? LIGHT_INK : DARK_INK;
}

/** WCAG 2 contrast ratio of two relative luminances. */
export function contrast(a: number, b: number): number {
  const [hi, lo] = a > b ? [a, b] : [b, a];
  return (hi + 0.05) / (lo + 0.05);
}

export function relativeLuminance([r, g, b]: [number, number, number]): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
