"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Search } from "lucide-react";
import { useDeferredValue, useState } from "react";
import Link from "next/link";
import { errorMessage } from "@/lib/errors";
import { useApi, useWorkspace } from "../providers";
import { Time } from "../ui/time";
import { chatKeys } from "@/lib/client/query-keys";
import { useHydrated } from "@/lib/client/use-hydrated";
import { chatListSchema } from "@/lib/chats/chat-schemas";

export function SessionList({ activeSessionId }: { activeSessionId: string | null }) {
  const api = useApi();
  const workspace = useWorkspace();
  const [q, setQ] = useState("");
  // The list arrives drawn from the server; words typed before the browser takes over would vanish.
  const ready = useHydrated();
  const words = useDeferredValue(q.trim());
  const sessions = useQuery({
    queryKey: words ? chatKeys.sessionSearch(workspace.slug, words) : chatKeys.sessions(workspace.slug),
    queryFn: () => api(words ? `/api/sessions?q=${encodeURIComponent(words)}` : "/api/sessions", { schema: chatListSchema }),
    placeholderData: words ? keepPreviousData : undefined,
  });
  const base = `/w/${workspace.slug}/chat`;
  // On a phone's picker page the chats come first, in at most half the screen; with none yet, the agents come first.
  const none = !words && sessions.data?.sessions.length === 0;
  const picker = activeSessionId === null ? `flex max-lg:max-h-[50dvh] ${none ? "max-lg:order-last" : ""}` : "hidden";

  return (
    <aside aria-label="Your chats" className={`card shrink-0 flex-col overflow-hidden lg:flex lg:w-64 ${picker}`}>
      <div className="flex items-center justify-between border-b border-slate-200 px-4 py-3">
        <h2 className="text-sm font-semibold">Chats</h2>
        <Link href={base} className="btn-secondary px-2 py-1 text-xs" aria-current={activeSessionId === null ? "page" : undefined}>
          New chat
        </Link>
      </div>
      <search className="border-b border-slate-200 p-2">
        <label className="relative block">
          <span className="sr-only">Search your chats</span>
          <Search aria-hidden className="pointer-events-none absolute top-1/2 left-2 size-4 -translate-y-1/2 text-slate-500" />
          <input type="search" className="input pl-8 text-sm" placeholder="Search your chats" maxLength={200} value={q} disabled={!ready} onChange={(e) => setQ(e.target.value)} />
        </label>
      </search>
      <nav aria-label="Chats" className="min-h-0 flex-1 overflow-y-auto p-2">
        {sessions.isPending ? (
          <p className="px-2 py-3 text-xs text-slate-500">Loading chats…</p>
        ) : sessions.isError ? (
          <p role="alert" className="px-2 py-3 text-xs text-rose-700">
            {errorMessage(sessions.error, "Could not load your chats.")}
          </p>
        ) : sessions.data.sessions.length === 0 ? (
          <p className="px-2 py-3 text-xs text-slate-500" role={words ? "status" : undefined}>
            {words ? `None of your chats mention “${words}”.` : "No chats yet. Pick an agent to start one."}
          </p>
        ) : (
          <ul className="space-y-0.5">
            {sessions.data.sessions.map((s) => {
              const active = s.id === activeSessionId;
              return (
                <li key={s.id}>
                  <Link
                    href={`${base}/${s.id}`}
                    aria-current={active ? "page" : undefined}
                    className={`flex items-center gap-2.5 rounded-md px-2 py-2 text-sm ${active ? "bg-indigo-50 text-indigo-900" : "text-slate-700 hover:bg-slate-100"}`}
                  >
                    <span aria-hidden className="h-2.5 w-2.5 shrink-0 rounded-full" style={{ backgroundColor: s.agent.color }} />
                    <span className="min-w-0 flex-1">
                      <span className={`block truncate ${active ? "font-medium" : ""}`}>{s.title}</span>
                      <span className="block truncate text-[11px] text-slate-600">
                        @{s.agent.handle} · <Time at={s.updatedAt} />
                      </span>
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
        )}
      </nav>
    </aside>
  );
}
