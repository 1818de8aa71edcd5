"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { chatKeys } from "@/lib/client/query-keys";
import { invalidateInEveryTab } from "@/lib/client/tab-sync";
import { chatListSchema } from "@/lib/chats/chat-schemas";
import { createdIdSchema } from "@/lib/shared-schemas";
import { useApi, useWorkspace } from "../providers";

/**
 * Starts a chat with an agent and opens it. A chat with that agent that was
 * opened and left before anything was sent is opened again instead, so that
 * trying "Start chat" does not leave empty chats behind in the list.
 */
export function useStartChat() {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (agentId: string) => {
      const listed = await queryClient.ensureQueryData({ queryKey: chatKeys.sessions(slug), queryFn: () => api("/api/sessions", { schema: chatListSchema }) });
      const fresh = listed.sessions.find((s) => s.fresh && s.agent.id === agentId);
      if (fresh) return { id: fresh.id, created: false };
      return { ...(await api("/api/sessions", { method: "POST", body: { agentId }, schema: createdIdSchema })), created: true };
    },
    onSuccess: ({ id, created }) => {
      if (created) invalidateInEveryTab(queryClient, [chatKeys.sessions(slug)]);
      router.push(`/w/${slug}/chat/${id}`);
    },
  });
}
