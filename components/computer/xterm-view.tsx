"use client";

import { useEffect, useRef } from "react";
import type { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";

/** The terminal's colours: the theme's terminal variables (dark in both themes), as xterm.js takes them. */
function themeOf(element: HTMLElement) {
  const styles = getComputedStyle(element);
  const read = (name: string, fallback: string) => styles.getPropertyValue(name).trim() || fallback;
  const background = read("--color-terminal", "#0b1120");
  return {
    background,
    foreground: read("--color-terminal-text", "#e2e8f0"),
    cursor: background,
    cursorAccent: background,
    green: read("--color-terminal-prompt", "#86efac"),
    brightGreen: read("--color-terminal-prompt", "#86efac"),
    brightBlack: read("--color-terminal-muted", "#a3b1c6"),
  };
}

/** Shows `next`: appended when it extends what is shown, else afresh. */
function show(current: { terminal: Terminal; written: string }, next: string) {
  if (current.written === next) return;
  if (next.startsWith(current.written)) current.terminal.write(next.slice(current.written.length));
  else {
    current.terminal.reset();
    current.terminal.write(next);
  }
  current.written = next;
}

/**
 * A read-only terminal (xterm.js) that shows `text` as a terminal would, colours and all, and follows it as it
 * grows: text that extends what is shown is appended, anything else is shown afresh. xterm.js loads after the page
 * (it is most of this view's script); its screen-reader mode keeps the lines readable to assistive technology.
 */
export function XtermView({ text, label }: { text: string; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const shown = useRef<{ terminal: Terminal; written: string } | null>(null);
  const latest = useRef(text);

  useEffect(() => {
    let cancelled = false;
    let dispose = () => {};
    void Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]).then(([{ Terminal }, { FitAddon }]) => {
      const element = host.current;
      if (cancelled || !element) return;
      const terminal = new Terminal({
        disableStdin: true,
        convertEol: true,
        cursorBlink: false,
        cursorInactiveStyle: "none",
        fontSize: 12,
        scrollback: 10_000,
        screenReaderMode: true,
        theme: themeOf(element),
      });
      const fit = new FitAddon();
      terminal.loadAddon(fit);
      terminal.open(element);
      // xterm's hidden input takes no keys here (the terminal is read-only), but it is still a field: it gets a name.
      terminal.textarea?.setAttribute("aria-label", `${label} (read-only)`);
      const refit = () => {
        try {
          fit.fit();
        } catch {
          // Not laid out yet (a closed disclosure): the next resize fits it.
        }
      };
      refit();
      const resized = new ResizeObserver(refit);
      resized.observe(element);
      shown.current = { terminal, written: "" };
      show(shown.current, latest.current);
      dispose = () => {
        resized.disconnect();
        terminal.dispose();
        shown.current = null;
      };
    });
    return () => {
      cancelled = true;
      dispose();
    };
    // One terminal for the life of the view; the text follows below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    latest.current = text;
    if (shown.current) show(shown.current, text);
  }, [text]);

  // A fixed height: the terminal fits its rows to the box (a box that grew with them would grow without end).
  return <div ref={host} role="group" aria-label={label} className="h-64 w-full overflow-hidden rounded-md bg-terminal p-2 sm:h-80" data-testid="xterm" />;
}
