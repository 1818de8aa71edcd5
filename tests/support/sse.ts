/** One Server-Sent Event as a test reads it. */
export interface Frame {
  id?: string;
  event?: string;
  data?: Record<string, unknown>;
}

/**
 * Reads an SSE response's events until `enough` says so or the stream ends
 * (a run stream ends after its terminal event), then lets the stream go.
 */
export async function readFrames(res: Response, enough: (frames: Frame[]) => boolean = () => false): Promise<Frame[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const frames: Frame[] = [];
  while (!enough(frames)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const raw = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const frame: Frame = {};
      for (const line of raw.split("\n")) {
        if (line.startsWith("id: ")) frame.id = line.slice(4);
        else if (line.startsWith("event: ")) frame.event = line.slice(7);
        else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
      }
      if (frame.event) frames.push(frame);
    }
  }
  await reader.cancel();
  return frames;
}
