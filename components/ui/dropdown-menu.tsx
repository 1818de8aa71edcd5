"use client";

import { Check } from "lucide-react";
import { DropdownMenu as Primitive } from "radix-ui";
import { cn } from "./cn";

export const DropdownMenu = Primitive.Root;
export const DropdownMenuTrigger = Primitive.Trigger;
export const DropdownMenuRadioGroup = Primitive.RadioGroup;

export const menuContentClass = "z-50 min-w-44 rounded-md border border-slate-200 bg-surface p-1 text-sm text-slate-900 shadow-lg";
const itemClass =
  "relative flex cursor-default select-none items-center gap-2 rounded px-2 py-1.5 outline-none data-[highlighted]:bg-slate-100 data-[disabled]:opacity-50";

/**
 * Rendered where its trigger is (no portal), so the open menu stays inside the trigger's landmark (the header, the
 * navigation column) for screen readers; it is positioned fixed, so it is not clipped by a scrolling column.
 */
export function DropdownMenuContent({ className, sideOffset = 6, ...props }: React.ComponentProps<typeof Primitive.Content>) {
  return <Primitive.Content {...props} sideOffset={sideOffset} className={cn(menuContentClass, className)} />;
}

export function DropdownMenuItem({ className, ...props }: React.ComponentProps<typeof Primitive.Item>) {
  return <Primitive.Item {...props} className={cn(itemClass, className)} />;
}

export function DropdownMenuLabel({ className, ...props }: React.ComponentProps<typeof Primitive.Label>) {
  return <Primitive.Label {...props} className={cn("px-2 py-1 text-xs font-medium text-slate-600", className)} />;
}

export function DropdownMenuSeparator() {
  return <Primitive.Separator className="my-1 h-px bg-slate-200" />;
}

export function DropdownMenuRadioItem({ className, children, ...props }: React.ComponentProps<typeof Primitive.RadioItem>) {
  return (
    <Primitive.RadioItem {...props} className={cn(itemClass, "pl-7", className)}>
      <Primitive.ItemIndicator className="absolute left-2 inline-flex">
        <Check aria-hidden className="size-4" />
      </Primitive.ItemIndicator>
      {children}
    </Primitive.RadioItem>
  );
}
