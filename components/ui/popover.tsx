"use client";

import { Popover as Primitive } from "radix-ui";
import { cn } from "./cn";

export const Popover = Primitive.Root;
export const PopoverTrigger = Primitive.Trigger;
export const PopoverClose = Primitive.Close;

export function PopoverContent({ className, sideOffset = 6, ...props }: React.ComponentProps<typeof Primitive.Content>) {
  return (
    <Primitive.Portal>
      <Primitive.Content
        {...props}
        sideOffset={sideOffset}
        className={cn("z-50 w-72 max-w-[calc(100vw-1rem)] rounded-md border border-slate-200 bg-surface p-3 text-sm text-slate-900 shadow-lg", className)}
      />
    </Primitive.Portal>
  );
}
