"use client";

import { useHydrated } from "@/lib/client/use-hydrated";

interface ComposerProps {
  value: string;
  onChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  agentName: string;
  /** A run is being written: sending waits, Stop is offered. */
  running: boolean;
  /** The run is suspended until a reviewer decides: said plainly, with "Stop waiting". */
  waiting?: boolean;
  /** `↑` in an empty composer: bring back the last message to edit and send again. */
  onRecall?: () => void;
  sending: boolean;
  stopping: boolean;
  /** Why the person cannot write here at all (not their chat), if so. */
  readOnlyReason: string | null;
  ref?: React.Ref<HTMLTextAreaElement>;
}

export function Composer({ value, onChange, onSend, onStop, agentName, running, waiting = false, onRecall, sending, stopping, readOnlyReason, ref }: ComposerProps) {
  const blocked = running || sending || !!readOnlyReason;
  const canSend = !blocked && value.trim().length > 0;
  // The chat arrives drawn from the server; words typed before the browser takes over would be lost.
  const ready = useHydrated();
  return (
    <form
      aria-label="Send a message"
      className="border-t border-slate-200 bg-surface p-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (canSend) onSend();
      }}
    >
      {readOnlyReason ? <p className="mb-2 text-xs text-slate-500">{readOnlyReason}</p> : null}
      <div className="flex items-end gap-2">
        <label htmlFor="chat-message" className="sr-only">
          Message
        </label>
        <textarea
          ref={ref}
          id="chat-message"
          rows={2}
          className="input max-h-48 min-h-[2.75rem] resize-none py-2 leading-snug [field-sizing:content]"
          placeholder={readOnlyReason ? "" : `Message ${agentName}…`}
          value={value}
          disabled={!!readOnlyReason || !ready}
          maxLength={20_000}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowUp" && value === "" && onRecall && !e.nativeEvent.isComposing) {
              e.preventDefault();
              onRecall();
              return;
            }
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (canSend) onSend();
            }
          }}
        />
        {running ? (
          <button type="button" className="btn-danger shrink-0" onClick={onStop} disabled={stopping || !!readOnlyReason}>
            <span aria-hidden className="h-2.5 w-2.5 rounded-[2px] bg-current" />
            {stopping ? "Stopping…" : waiting ? "Stop waiting" : "Stop"}
          </button>
        ) : (
          <button type="submit" className="btn-primary shrink-0" disabled={!canSend}>
            {sending ? "Sending…" : "Send"}
          </button>
        )}
      </div>
      <p className="mt-1.5 text-[11px] text-slate-500" data-testid="composer-hint">
        {waiting
          ? `Waiting for someone to decide on ${agentName}'s request; the reply goes on once someone does. Stop waiting cancels it.`
          : running
            ? `${agentName} is answering; you can send once the reply is done.`
            : "Enter to send · Shift+Enter for a new line · ↑ brings back your last message"}
      </p>
    </form>
  );
}
