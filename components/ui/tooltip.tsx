"use client";

import { Tooltip as Primitive } from "radix-ui";

export const TooltipProvider = Primitive.Provider;

/** A short hint on hover and keyboard focus; the trigger keeps its own accessible name. */
export function Tooltip({ content, children, side = "bottom" }: { content: React.ReactNode; children: React.ReactNode; side?: "top" | "bottom" | "left" | "right" }) {
  return (
    <Primitive.Root>
      <Primitive.Trigger asChild>{children}</Primitive.Trigger>
      <Primitive.Portal>
        <Primitive.Content side={side} sideOffset={6} className="z-50 rounded bg-slate-900 px-2 py-1 text-xs text-slate-50 shadow">
          {content}
        </Primitive.Content>
      </Primitive.Portal>
    </Primitive.Root>
  );
}
