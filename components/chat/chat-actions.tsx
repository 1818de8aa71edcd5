"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Pencil, Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useApi, useWorkspace } from "../providers";
import { ConfirmDialog } from "../ui/alert-dialog";
import { Dialog, DialogContent, DialogTrigger } from "../ui/dialog";
import { toast } from "../ui/toaster";
import { chatRenamedSchema } from "@/lib/chats/chat-schemas";
import { chatKeys } from "@/lib/client/query-keys";
import { invalidateInEveryTab, tellOtherTabs } from "@/lib/client/tab-sync";

const TITLE_MAX = 80;

/** Rename and delete, for the person whose chat it is. */
export function ChatActions({ sessionId, title }: { sessionId: string; title: string }) {
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
    mutationFn: () => api(`/api/sessions/${sessionId}`, { method: "DELETE" }),
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
        description={`“${title}” and all its messages are removed for good. What its agent already did (posts, memories) stays done.`}
        confirmLabel="Delete chat"
        onConfirm={() => remove.mutate()}
      />
      {remove.isError ? (
        <p role="alert" className="max-w-48 text-xs text-rose-700">
          {errorMessage(remove.error, "The chat was not deleted.")}
        </p>
      ) : null}
    </div>
  );
}
