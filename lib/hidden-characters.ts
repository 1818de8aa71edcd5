/**
 * Characters a reader cannot see but that change what a text says: controls
 * that reorder the text around them (a right-to-left override shows
 * "1234-9876" as "6789-4321"), characters of no width, and the tag block that
 * spells words nobody sees. A person deciding on an agent's action is shown
 * each one as a mark naming it, and the exact input with each one escaped, so
 * that what they read is what will be sent.
 *
 * Joiners (U+200C, U+200D) are left alone: scripts and emoji need them, and
 * they neither reorder nor hide words.
 */
const NAMES: Record<number, string> = {
  0x00ad: "soft hyphen",
  0x061c: "Arabic letter mark",
  0x180e: "Mongolian vowel separator",
  0x200b: "zero-width space",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "end of a direction override",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2061: "invisible function application",
  0x2062: "invisible times",
  0x2063: "invisible separator",
  0x2064: "invisible plus",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first-strong isolate",
  0x2069: "end of a direction isolate",
  0xfeff: "zero-width no-break space",
};

const HIDDEN = /[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/gu;

/** "U+202E": how a hidden character is named on screen. */
export function codeOf(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What a hidden character does, in words (a tag character spells the letter it hides). */
export function nameOf(character: string): string {
  const point = character.codePointAt(0)!;
  if (point >= 0xe0000 && point <= 0xe007f) {
    const hidden = point - 0xe0000;
    return hidden >= 0x20 && hidden < 0x7f ? `tag character (hides “${String.fromCharCode(hidden)}”)` : "tag character";
  }
  return NAMES[point] ?? "hidden character";
}

export type TextPart = { text: string } | { hidden: string };

/** A text cut into what shows and the hidden characters between, in order. */
export function splitHidden(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  for (const match of text.matchAll(HIDDEN)) {
    if (match.index > from) parts.push({ text: text.slice(from, match.index) });
    parts.push({ hidden: match[0] });
    from = match.index + match[0].length;
  }
  if (from < text.length) parts.push({ text: text.slice(from) });
  return parts;
}

/** The distinct hidden characters in every string of a value (keys included), by code, in the order first met. */
export function hiddenIn(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (v: unknown) => {
    if (typeof v === "string") for (const m of v.matchAll(HIDDEN)) found.add(m[0]);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") {
      for (const [key, inner] of Object.entries(v)) {
        visit(key);
        visit(inner);
      }
    }
  };
  visit(value);
  return [...found];
}

/** A character as JSON escapes it (`\u202e`; a character above U+FFFF as its two halves). */
function escaped(character: string): string {
  return [...Array(character.length).keys()].map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");
}

/**
 * The value as indented JSON with every hidden character escaped: the same
 * value for any JSON reader (the escapes decode to the same characters), and
 * every character visible to a person.
 */
export function exactJson(value: unknown, indent = 2): string {
  return (JSON.stringify(value, null, indent) ?? String(value)).replace(HIDDEN, escaped);
}
