import { inkOn } from "@/lib/client/text-on-color";

/** An agent's (or a person's) initial on their colour, in the ink that reads best on it. Decorative: the name is beside it. */
export function Avatar({ name, color, size = "md" }: { name: string; color: string; size?: "sm" | "md" | "lg" }) {
  const dimensions = size === "sm" ? "h-6 w-6 text-[11px]" : size === "lg" ? "h-9 w-9 text-sm" : "h-8 w-8 text-sm";
  return (
    <span aria-hidden className={`flex shrink-0 items-center justify-center rounded-full font-semibold ${dimensions}`} style={{ backgroundColor: color, color: inkOn(color) }}>
      {(Array.from(name)[0] ?? "").toUpperCase()}
    </span>
  );
}
