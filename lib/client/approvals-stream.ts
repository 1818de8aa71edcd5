/**
 * The approvals stream's message, `{ pending: n }` with n a whole number from 0, checked without zod: the
 * workspace layout reads it on every page, and zod would be most of that layout's script.
 */
export const pendingMessageSchema = {
  safeParse(value: unknown): { success: true; data: { pending: number } } | { success: false } {
    if (typeof value !== "object" || value === null) return { success: false };
    const pending = (value as { pending?: unknown }).pending;
    return typeof pending === "number" && Number.isSafeInteger(pending) && pending >= 0 ? { success: true, data: { pending } } : { success: false };
  },
};
