import { clsx, type ClassValue } from "clsx";

/** Joins class names, dropping the false and empty ones. */
export function cn(...values: ClassValue[]): string {
  return clsx(values);
}
