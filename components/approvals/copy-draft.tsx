"use client";

import { toast } from "../ui/toaster";

/** Copies a draft that was not sent, so nothing typed is lost when someone else decides first. */
export function CopyDraft({ text, what }: { text: string; what: string }) {
  return (
    <button
      type="button"
      className="btn-secondary py-2.5 sm:py-1.5"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => toast.success(`Copied your ${what}`),
          () => toast.error(`Could not copy your ${what}: select it and copy it by hand.`),
        )
      }>
      Copy your {what}
    </button>
  );
}
