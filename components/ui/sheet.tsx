"use client";

import { X } from "lucide-react";
import { Dialog as Primitive } from "radix-ui";
import { cn } from "./cn";
import { overlayClass } from "./dialog";

export const Sheet = Primitive.Root;
export const SheetTrigger = Primitive.Trigger;
export const SheetClose = Primitive.Close;

/** A drawer from the left edge (the phone's navigation); a modal dialog underneath, so focus stays inside. */
export function SheetContent({
  title,
  className,
  children,
  ...props
}: React.ComponentProps<typeof Primitive.Content> & { title: string }) {
  return (
    <Primitive.Portal>
      <Primitive.Overlay className={overlayClass} />
      <Primitive.Content
        {...props}
        aria-describedby={undefined}
        className={cn("fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] flex-col overflow-y-auto shadow-xl", className)}
      >
        <Primitive.Title className="sr-only">{title}</Primitive.Title>
        {children}
        <Primitive.Close className="btn absolute top-3 right-3 p-1.5 text-sidebar-muted hover:bg-sidebar-accent hover:text-white" aria-label="Close menu">
          <X aria-hidden className="size-5" />
        </Primitive.Close>
      </Primitive.Content>
    </Primitive.Portal>
  );
}
