"use client";

import { AlertDialog as Primitive } from "radix-ui";
import { useState } from "react";
import { overlayClass } from "./dialog";

/**
 * Asks before an action that cannot be undone. The trigger is the caller's
 * own button; the cancel button has the focus first, so Enter never destroys.
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  onConfirm,
  destructive = true,
}: {
  trigger: React.ReactNode;
  title: React.ReactNode;
  description: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  destructive?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Primitive.Root open={open} onOpenChange={setOpen}>
      <Primitive.Trigger asChild>{trigger}</Primitive.Trigger>
      <Primitive.Portal>
        <Primitive.Overlay className={overlayClass} />
        <Primitive.Content className="card fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 p-5 text-left text-slate-900 shadow-xl">
          <Primitive.Title className="text-base font-semibold">{title}</Primitive.Title>
          <Primitive.Description className="mt-2 text-sm text-slate-600">{description}</Primitive.Description>
          <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Primitive.Cancel className="btn-secondary">Cancel</Primitive.Cancel>
            <Primitive.Action
              className={destructive ? "btn-solid-danger" : "btn-primary"}
              onClick={() => {
                onConfirm();
              }}
            >
              {confirmLabel}
            </Primitive.Action>
          </div>
        </Primitive.Content>
      </Primitive.Portal>
    </Primitive.Root>
  );
}
