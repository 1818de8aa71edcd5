"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Pencil, Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { AppError, errorMessage, isAppError } from "@/lib/errors";
import { useApi, useWorkspace } from "../providers";
import { ConfirmDialog } from "../ui/alert-dialog";
import { Dialog, DialogContent, DialogTrigger } from "../ui/dialog";
import { toast } from "../ui/toaster";
import { chatRenamedSchema } from "@/lib/chats/chat-schemas";
import { chatKeys } from "@/lib/client/query-keys";
import { invalidateInEveryTab, tellOtherTabs } from "@/lib/client/tab-sync";

const TITLE_MAX = 80;

/** How long a stopped reply may take to end before the delete is tried again, and how often. */
const STOP_WAIT_TRIES = 40;
const STOP_WAIT_MS = 250;

/**
 * Rename and delete, for the person whose chat it is. A chat whose reply is
 * still running or waiting for a reviewer is deleted with "Stop and delete":
 * the reply is stopped first (its waiting request withdrawn), then the chat goes.
 */
export function ChatActions({ sessionId, title, activeRun }: { sessionId: string; title: string; activeRun: { id: string; waiting: boolean } | null }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(title);

  const refresh = () => invalidateInEveryTab(queryClient, [chatKeys.session(slug, sessionId), chatKeys.sessions(slug)]);
  const rename = useMutation({
    mutationFn: (next: string) => api(`/api/sessions/${sessionId}`, { method: "PATCH", body: { title: next }, schema: chatRenamedSchema }),
    onSuccess: () => {
      setOpen(false);
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (stopFirst: string | null) => {
      if (stopFirst) await api(`/api/runs/${stopFirst}/cancel`, { method: "POST" }).catch((e: unknown) => (isAppError(e) && e.code === "conflict:run" ? null : Promise.reject(e)));
      // A running reply ends at its next step: the delete waits for that, a few seconds at most.
      for (let attempt = 1; ; attempt++) {
        try {
          return await api(`/api/sessions/${sessionId}`, { method: "DELETE" });
        } catch (e) {
          const stillEnding = isAppError(e) && e.code === "conflict:session_active";
          if (stopFirst && stillEnding && attempt >= STOP_WAIT_TRIES) {
            throw new AppError("conflict:session_active", "The reply was stopped, but its last step is still ending. Try Delete again in a moment.");
          }
          if (!stopFirst || !stillEnding) throw e;
          await new Promise((r) => setTimeout(r, STOP_WAIT_MS));
        }
      }
    },
    onError: (e) => toast.error(errorMessage(e, "The chat was not deleted.")),
    onSuccess: () => {
      toast.success("Chat deleted");
      queryClient.removeQueries({ queryKey: chatKeys.session(slug, sessionId) });
      void queryClient.invalidateQueries({ queryKey: chatKeys.sessions(slug) });
      // Another tab on this chat reads it again and says it is gone (this one leaves it).
      tellOtherTabs([chatKeys.session(slug, sessionId), chatKeys.sessions(slug)]);
      router.push(`/w/${slug}/chat`);
    },
  });

  return (
    <div className="flex shrink-0 items-center gap-1">
      <Dialog
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (next) {
            setName(title);
            rename.reset();
          }
        }}
      >
        <DialogTrigger className="btn p-1.5 text-slate-600 hover:bg-slate-100" aria-label="Rename chat">
          <Pencil aria-hidden className="size-4" />
        </DialogTrigger>
        <DialogContent title="Rename chat">
          <form
            className="space-y-3"
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim()) rename.mutate(name.trim());
            }}
          >
            <label className="label" htmlFor="chat-title">
              Title
            </label>
            <input id="chat-title" className="input" autoFocus maxLength={TITLE_MAX} value={name} onChange={(e) => setName(e.target.value)} />
            {rename.isError ? (
              <p role="alert" className="text-sm text-rose-700">
                {errorMessage(rename.error, "The chat was not renamed.")}
              </p>
            ) : null}
            <div className="flex justify-end gap-2">
              <button type="submit" className="btn-primary" disabled={!name.trim() || rename.isPending}>
                Save
              </button>
            </div>
          </form>
        </DialogContent>
      </Dialog>
      <ConfirmDialog
        trigger={
          <button type="button" className="btn p-1.5 text-slate-600 hover:bg-slate-100" aria-label="Delete chat">
            <Trash2 aria-hidden className="size-4" />
          </button>
        }
        title="Delete this chat?"
        description={`${
          activeRun
            ? activeRun.waiting
              ? "Its reply is waiting for a reviewer: it is stopped first, and the request is withdrawn. "
              : "Its reply is still being written: it is stopped first. "
            : ""
        }“${title}” and all its messages are removed for good. What its agent already did (posts, memories) stays done.`}
        confirmLabel={activeRun ? "Stop and delete" : "Delete chat"}
        onConfirm={() => remove.mutate(activeRun?.id ?? null)}
      />
    </div>
  );
}
