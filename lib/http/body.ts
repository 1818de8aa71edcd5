import { AppError } from "../errors";

/**
 * A request's body as UTF-8 text, read with a size cap: a declared Content-Length over `maxBytes` is refused before
 * anything is read (`payload_too_large:body`), and a body without one (chunked) is counted while it streams and
 * refused as soon as it passes the cap. Every door that reads a body reads it here.
 */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => new AppError("payload_too_large:body", `The body is larger than ${maxBytes} bytes.`, { details: { maxBytes } });
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    if (!/^\s*\d+\s*$/.test(declared)) throw new AppError("bad_request:content_length", "The Content-Length header is not a number.");
    if (Number(declared) > maxBytes) throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request:encoding", "The body is not valid UTF-8.");
  }
}
