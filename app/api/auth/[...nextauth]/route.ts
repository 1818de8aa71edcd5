import { handlers } from "@/lib/http/auth";

export const { GET, POST } = handlers;
