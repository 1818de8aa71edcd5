"use client";

import { X } from "lucide-react";
import { Dialog as Primitive } from "radix-ui";
import { cn } from "./cn";

export const Dialog = Primitive.Root;
export const DialogTrigger = Primitive.Trigger;

export const overlayClass = "fixed inset-0 z-50 bg-slate-950/50";

/** A centred modal with a title (required: it names the dialog) and an optional description. */
export function DialogContent({
  title,
  description,
  className,
  children,
  ...props
}: React.ComponentProps<typeof Primitive.Content> & { title: React.ReactNode; description?: React.ReactNode }) {
  return (
    <Primitive.Portal>
      <Primitive.Overlay className={overlayClass} />
      <Primitive.Content
        {...props}
        aria-describedby={description ? undefined : props["aria-describedby"]}
        className={cn(
          "card fixed top-1/2 left-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto p-5 text-slate-900 shadow-xl",
          className,
        )}
      >
        <Primitive.Title className="pr-8 text-base font-semibold">{title}</Primitive.Title>
        {description ? <Primitive.Description className="mt-1 text-sm text-slate-600">{description}</Primitive.Description> : null}
        <div className="mt-4">{children}</div>
        <Primitive.Close className="btn absolute top-3 right-3 p-1.5 text-slate-500 hover:bg-slate-100" aria-label="Close">
          <X aria-hidden className="size-4" />
        </Primitive.Close>
      </Primitive.Content>
    </Primitive.Portal>
  );
}
