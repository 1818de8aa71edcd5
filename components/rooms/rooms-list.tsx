"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { isAppError } from "@/lib/errors";
import { Avatar } from "../ui/avatar";
import { agentKeys, roomKeys } from "@/lib/client/query-keys";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import { roomCreatedSchema, roomListSchema } from "@/lib/rooms/room-schemas";
import { errorText } from "../ui/error-text";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";

export function RoomsList({ canCreate }: { canCreate: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const [creating, setCreating] = useState(false);
  const rooms = useQuery({ queryKey: roomKeys.list(slug), queryFn: () => api("/api/rooms", { schema: roomListSchema }) });

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <header className="flex flex-wrap items-end gap-4">
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold tracking-tight">Rooms</h1>
          <p className="mt-1 text-sm text-slate-600">
            Shared spaces where several agents hear the same message. A post in a room gives every member agent a turn, and each answers in
            the room.
          </p>
        </div>
        {canCreate && !creating ? (
          <button type="button" className="btn-primary" onClick={() => setCreating(true)}>
            New room
          </button>
        ) : null}
      </header>

      {creating ? <NewRoom onDone={() => setCreating(false)} /> : null}

      {rooms.isPending ? (
        <p role="status" className="text-sm text-slate-500">
          Loading rooms…
        </p>
      ) : rooms.isError ? (
        <ErrorNotice error={rooms.error} fallback="Could not load the rooms." />
      ) : rooms.data.rooms.length === 0 ? (
        <p className="card p-6 text-sm text-slate-600">No rooms yet.{canCreate ? " Create one and pick the agents that should hear what is said in it." : " A manager can create one."}</p>
      ) : (
        <ul aria-label="Rooms" className="grid gap-4 md:grid-cols-2">
          {rooms.data.rooms.map((room) => (
            <li key={room.id}>
              <article aria-label={`Room #${room.name}`} className="card flex h-full flex-col p-4">
                <Link href={`/w/${slug}/rooms/${room.id}`} className="font-mono text-base font-semibold text-slate-900 hover:text-indigo-700 hover:underline">
                  #{room.name}
                </Link>
                <p className="mt-1 flex-1 text-sm text-slate-600">{room.subject || <span className="text-slate-500">No subject</span>}</p>
                <div className="mt-3 flex items-center gap-2">
                  <div className="flex -space-x-1.5">
                    {room.members.map((m) => (
                      <span key={m.id} title={`@${m.handle}`} className="rounded-full ring-2 ring-white">
                        <Avatar name={m.name} color={m.color} size="sm" />
                      </span>
                    ))}
                  </div>
                  <span className="truncate font-mono text-xs text-slate-500">{room.members.map((m) => `@${m.handle}`).join(", ")}</span>
                </div>
              </article>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function NewRoom({ onDone }: { onDone: () => void }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const id = useId();
  const router = useRouter();
  const queryClient = useQueryClient();
  const agents = useQuery({ queryKey: agentKeys.list(slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });
  const [name, setName] = useState("");
  const [subject, setSubject] = useState("");
  const [members, setMembers] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () => api("/api/rooms", { method: "POST", body: { name, subject, agentIds: members }, schema: roomCreatedSchema }),
    onSuccess: ({ room }) => {
      void queryClient.invalidateQueries({ queryKey: roomKeys.list(slug) });
      router.push(`/w/${slug}/rooms/${room.id}`);
    },
  });
  const error = isAppError(create.error) ? create.error : null;
  const detail = error?.code === "bad_request:body" && Array.isArray(error.details) ? (error.details[0] as { path?: string; message?: string } | undefined) : undefined;

  return (
    <section aria-labelledby={`${id}-heading`} className="card p-5">
      <h2 id={`${id}-heading`} className="mb-4 text-base font-semibold">
        New room
      </h2>
      <form
        aria-label="New room"
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <div className="grid gap-4 sm:grid-cols-[14rem_1fr]">
          <div>
            <label className="label" htmlFor={`${id}-name`}>
              Room name
            </label>
            <div className="flex items-center">
              <span className="rounded-l-md border border-r-0 border-slate-300 bg-slate-50 px-2 py-1.5 text-sm text-slate-500">#</span>
              <input id={`${id}-name`} className="input rounded-l-none font-mono" required maxLength={41} value={name} onChange={(e) => setName(e.target.value)} placeholder="ops" />
            </div>
          </div>
          <div>
            <label className="label" htmlFor={`${id}-subject`}>
              Subject
            </label>
            <input id={`${id}-subject`} className="input" maxLength={300} value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="What the room is for" />
          </div>
        </div>
        <fieldset>
          <legend className="label">Member agents</legend>
          {agents.isPending ? <p className="text-sm text-slate-500">Loading agents…</p> : null}
          <div className="flex flex-wrap gap-2">
            {(agents.data?.agents ?? []).map((agent) => {
              const checked = members.includes(agent.id);
              return (
                <label key={agent.id} className={`flex cursor-pointer items-center gap-2 rounded-md border px-2.5 py-1.5 text-sm ${checked ? "border-indigo-300 bg-indigo-50/60" : "border-slate-200 hover:bg-slate-50"}`}>
                  <input
                    type="checkbox"
                    checked={checked}
                    aria-label={`@${agent.handle}`}
                    onChange={(e) => setMembers((m) => (e.target.checked ? [...m, agent.id] : m.filter((x) => x !== agent.id)))}
                  />
                  <span aria-hidden className="h-2.5 w-2.5 rounded-full" style={{ backgroundColor: agent.color }} />
                  <span className="font-mono text-xs">@{agent.handle}</span>
                  {agent.status === "paused" ? <span className="text-[11px] text-amber-700">paused</span> : null}
                </label>
              );
            })}
          </div>
        </fieldset>
        {create.isError ? (
          <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {detail?.message ? `${detail.path === "name" ? "Room name" : detail.path === "agentIds" ? "Members" : "The room"}: ${detail.message}` : errorText(create.error, "The room was not created.")}
          </p>
        ) : null}
        <div className="flex gap-2">
          <button type="submit" className="btn-primary" disabled={create.isPending || members.length === 0 || !name.trim()}>
            {create.isPending ? "Creating…" : "Create room"}
          </button>
          <button type="button" className="btn-secondary" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
