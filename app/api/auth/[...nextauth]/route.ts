import { authRoute } from "@/lib/http/auth";

export const { GET, POST } = authRoute;
