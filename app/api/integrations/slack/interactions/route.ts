import { getServer, publicBaseUrl } from "@/lib/server";
import { readBodyText } from "@/lib/http/body";
import { errorResponse } from "@/lib/http/errors";
import { jsonResponse } from "@/lib/http/json";
import { documented } from "@/lib/http/route";
import { handleSlackInteraction, verifySlackRequest } from "@/lib/notifications/slack-interactions";

export const dynamic = "force-dynamic";

const doc = {
  summary:
    "Slack's button presses and the rejection modal (form-encoded `payload`), for a workspace's connected Slack app: verified with its signing secret (`v0` HMAC of the timestamp and body); a missing, wrong or over five minutes old signature gets 401 `unauthorized:slack_signature`, a request Slack sent before 409 `conflict:slack_replay`; each refusal is audited",
  role: "Slack, signed with the app's signing secret",
};

export const POST = documented(doc, async (req: Request) => {
  try {
    const server = await getServer();
    const rawBody = await readBodyText(req, 256 * 1024);
    const signers = await verifySlackRequest({ db: server.db, encryptionKey: server.secrets.encryptionKey }, req.headers, rawBody);
    const answer = await handleSlackInteraction(
      {
        db: server.db,
        bus: server.bus,
        tools: server.runtime.deps.tools,
        channels: server.channels,
        encryptionKey: server.secrets.encryptionKey,
        baseUrl: publicBaseUrl(server.env),
        resumeRun: (runId) => server.runtime.resumeRun(runId),
      },
      signers,
      rawBody,
    );
    return answer.body ? jsonResponse(answer.body) : new Response(null, { status: 200 });
  } catch (error) {
    return errorResponse(error);
  }
});
