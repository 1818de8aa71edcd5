import { checkHealth } from "@/lib/health";
import { jsonResponse } from "@/lib/http/json";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  return jsonResponse(health, { status: health.status === "ok" ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
