"use client";

import { toast } from "./toaster";

/** A button that copies `text` and says so. */
export function CopyButton({ text, what, className = "" }: { text: string; what: string; className?: string }) {
  return (
    <button
      type="button"
      className={`btn-secondary px-2 py-0.5 text-xs ${className}`}
      aria-label={`Copy ${what}`}
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => toast.success(`Copied ${what}`),
          () => toast.error(`Could not copy ${what}: select it and copy it by hand.`),
        )
      }>
      Copy
    </button>
  );
}
