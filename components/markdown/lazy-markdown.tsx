"use client";

import { memo, useEffect, useState } from "react";

type Renderer = typeof import("../chat/markdown");

// The Markdown renderer (react-markdown with GFM) is loaded once, after the page, for every message on it.
let renderer: Renderer | null = null;
let loading: Promise<Renderer> | null = null;
const load = () => (loading ??= import("../chat/markdown").then((m) => (renderer = m)));

/**
 * Markdown as agents write it (see ../chat/markdown), with the renderer's script loaded after the page: until it
 * arrives the text shows as it was written, in the same box and type, then formatted.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const [loaded, setLoaded] = useState<Renderer | null>(renderer);
  useEffect(() => {
    if (loaded) return;
    let live = true;
    void load().then((m) => {
      if (live) setLoaded(m);
    });
    return () => {
      live = false;
    };
  }, [loaded]);
  if (!loaded) return <div className="text-sm leading-relaxed break-words whitespace-pre-wrap text-slate-800">{text}</div>;
  return <loaded.Markdown text={text} />;
});
