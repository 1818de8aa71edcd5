import { checkHealth } from "@/lib/health";
import { jsonResponse } from "@/lib/http/json";
import { documented } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = documented({ summary: "database reachable and migrations applied (503 when not)" }, async () => {
  const health = await checkHealth();
  return jsonResponse(health, { status: health.status === "ok" ? 200 : 503, headers: { "Cache-Control": "no-store" } });
});
