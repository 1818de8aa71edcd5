import { errorLine } from "@/lib/error-sentences";

/** An error as one line of words with its code, for places that hold only text (see `ErrorNotice` for the full form). */
export function errorText(error: unknown, fallback = "Something went wrong."): string {
  return errorLine(error, fallback);
}
