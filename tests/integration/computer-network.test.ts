import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createChat } from "../../lib/chats/chats";
import { agentFileVersions, steps } from "../../lib/db/schema";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, suspension, waitForRun } from "../support/runtime";
import { approvalSteps } from "../support/approvals";
import { useTestServer } from "../support/server";
import { useLocalWebPage } from "../support/web-page";

type ShellOut = { exitCode: number | null; stdout: string; stderr: string; network: { hosts: string[]; refused: string[] } | null; taint: string[] };

describe("a command with the network: asked for, approved, and only through the egress proxy", () => {
  const server = useTestServer();
  const { decide } = approvalSteps(server);
  const pageOrigin = useLocalWebPage(server, "<html><body>release 4.2 is out</body></html>");

  async function start(text: string) {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["shell.exec", "files.read"] });
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text });
    return { s, owner, agent, runId };
  }

  /** Approves the run's waiting command as a reviewer and returns the command's step once the run has ended. */
  async function approveAndFinish(ctx: Awaited<ReturnType<typeof start>>) {
    const approval = await suspension(ctx.s.db, ctx.runId);
    const reviewer = await makeUser(ctx.s.db, ctx.owner.workspaceId, "reviewer");
    expect((await decide(reviewer, approval.id)).status).toBe(200);
    await waitForRun(ctx.s.db, ctx.runId, 60_000);
    const [step] = await ctx.s.db.select().from(steps).where(eq(steps.runId, ctx.runId)).orderBy(asc(steps.position));
    return step!;
  }

  it("waits for a person, whose card says the network is on; the same command without it runs at once", async () => {
    const offline = await start("run echo no network needed");
    await waitForRun(offline.s.db, offline.runId);
    const [ran] = await offline.s.db.select().from(steps).where(eq(steps.runId, offline.runId));
    expect(ran?.status).toBe("succeeded");

    const online = await start(`run online curl -sS ${pageOrigin()}/`);
    const approval = await suspension(online.s.db, online.runId);
    expect([approval.tool, approval.category]).toEqual(["shell.exec", "code_exec"]);
    const asked = (await readRunEvents(online.s.db, online.runId, 0)).find((e) => e.type === "approval_required");
    expect((asked?.payload as { reason?: string }).reason).toBe("This call runs code with access to the internet.");
    const preview = approval.preview as { fields: { label: string; value: string }[]; body?: string };
    expect(preview.fields).toContainEqual({ label: "Network", value: "On: public addresses only, through Clawdeck's proxy" });
    expect(preview.body).toBe(`curl -sS ${pageOrigin()}/`);
  });

  it("reaches an allowed page through the proxy, taints the run and what it wrote, and is refused the database, the metadata service, private and loopback addresses", async () => {
    const port = new URL(pageOrigin()).port;
    const probe = [
      `curl -sS ${pageOrigin()}/ | tee page.html`,
      "curl -sS http://127.0.0.1:5432/",
      "curl -sS http://localhost:3000/api/health",
      "curl -sS -m 5 http://169.254.169.254/latest/meta-data/",
      "curl -sS -m 5 https://10.1.2.3/",
      "curl -sS -m 5 http://[::1]:5432/",
      // Around the proxy there is nothing: the sandbox's only network is its own loopback.
      `curl -sS -m 5 --noproxy '*' ${pageOrigin()}/ 2>&1 | tail -1`,
      `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), 2)" 2>&1 | tail -1`,
    ].join("; echo ---; ");
    const ctx = await start(`run online ${probe}`);
    const step = await approveAndFinish(ctx);
    expect(step.status).toBe("succeeded");
    const out = step.output as ShellOut;
    const parts = out.stdout.split("---\n").map((p) => p.trim());
    expect(parts[0]).toContain("release 4.2 is out");
    expect(parts[1]).toBe("Refused to connect to 127.0.0.1:5432: 127.0.0.1 is a loopback address.");
    expect(parts[2]).toBe("Refused to connect to localhost:3000: localhost resolves to 127.0.0.1, a loopback address.");
    expect(parts[3]).toBe("Refused to connect to 169.254.169.254:80: 169.254.169.254 is a link-local address (the cloud metadata service).");
    expect(parts[4]).toBe("");
    expect(out.stderr).toMatch(/CONNECT tunnel failed, response 403/);
    expect(parts[5]).toBe("Refused to connect to [::1]:5432: ::1 is a loopback address.");
    expect(parts[6]).toMatch(/Couldn't connect to server|Failed to connect/);
    expect(parts[7]).toMatch(/ConnectionRefused|Connection refused/);
    expect(out.network?.hosts).toEqual(["127.0.0.1"]);
    expect(out.network?.refused).toHaveLength(5);
    expect(out.network?.refused).toContain("Refused to connect to 10.1.2.3:443: 10.1.2.3 is a private address.");
    // What came from the network is untrusted: the step, the run, and the file the command wrote from it.
    expect(step.taint).toEqual(["web:127.0.0.1"]);
    const [file] = await ctx.s.db.select({ taint: agentFileVersions.taint }).from(agentFileVersions).where(and(eq(agentFileVersions.agentId, ctx.agent.id), eq(agentFileVersions.path, "page.html")));
    expect(file?.taint).toEqual(["web:127.0.0.1"]);
  });

  it("a page that is not on the allow-list is refused on loopback even with the network on", async () => {
    const s = server();
    const allowed = s.runtime.deps.fetchAllow;
    s.runtime.deps.fetchAllow = [];
    try {
      const ctx = await start(`run online curl -sS ${pageOrigin()}/`);
      const step = await approveAndFinish(ctx);
      const out = step.output as ShellOut;
      expect(out.stdout.trim()).toBe(`Refused to connect to 127.0.0.1:${new URL(pageOrigin()).port}: 127.0.0.1 is a loopback address.`);
      expect(out.network?.hosts).toEqual([]);
      expect(step.taint ?? []).toEqual([]);
    } finally {
      s.runtime.deps.fetchAllow = allowed;
    }
  });
});
