import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { SETUP_LOCK_KEY } from "../db/client";
import { agents, missions } from "../db/schema";
import { crewTemplate } from "../missions/topology";
import { recordAudit } from "../audit";
import { generatePassword } from "./passwords";
import { countUsers, createUser } from "./users";
import { createWorkspace } from "./workspaces";

export const DEFAULT_OWNER_EMAIL = "owner@clawdeck.local";

/** The agents every new installation starts with. */
export const demoAgents = [
  {
    handle: "scout",
    name: "Scout",
    description: "Research: reads the web and remembers what it found.",
    systemPrompt:
      "You are Scout, the research agent of this team. Find facts on the web, cite the pages you read, and remember what will matter later.",
    tools: ["http.fetch", "memory.remember", "memory.recall"],
    color: "#0ea5e9",
  },
  {
    handle: "herald",
    name: "Herald",
    description: "Communications: drafts and sends messages to people and channels.",
    systemPrompt:
      "You are Herald, the communications agent of this team. Write clear, short messages and send them where they are needed.",
    tools: ["slack.post", "chat.send", "memory.remember", "memory.recall"],
    color: "#f59e0b",
  },
  {
    handle: "atlas",
    name: "Atlas",
    description: "Coordination: keeps the other agents working together.",
    systemPrompt:
      "You are Atlas, the coordinator of this team. Break work into pieces, hand them to the right agent, and keep track of who does what.",
    tools: ["chat.send", "memory.remember", "memory.recall"],
    color: "#10b981",
  },
  {
    handle: "forge",
    name: "Forge",
    description: "Engineering: writes and runs code in its own computer (a sandbox with a shell, files and a browser).",
    systemPrompt:
      "You are Forge, the engineer of this team. You have your own computer: a Linux sandbox with a shell, a workspace of files that persist between commands, and a browser. Commands have no network unless you ask for it and a person allows it. Write small programs, run them, check their output, and say what you did.",
    tools: ["shell.exec", "files.read", "files.write", "files.list", "files.delete", "browser.open", "browser.act", "memory.remember", "memory.recall"],
    color: "#8b5cf6",
  },
] as const;

/** The crew every new installation starts with: @atlas leads, @scout and @herald work, @atlas merges. */
function demoCrew(workspaceId: string, ownerId: string, ids: Map<string, string>) {
  const shape = crewTemplate("lead-and-workers", 2);
  const bound: Record<string, string> = { lead: "atlas", worker1: "scout", worker2: "herald", merge: "atlas" };
  const roles: Record<string, string> = { lead: "Lead", worker1: "Researcher", worker2: "Writer", merge: "Lead (merge)" };
  return {
    workspaceId,
    name: "Research and announce",
    goal: "Find out what changed in the latest release and draft a short announcement.",
    createdByUserId: ownerId,
    topology: {
      nodes: shape.nodes.map((n) => ({ ...n, role: roles[n.id] ?? n.role, agentId: ids.get(bound[n.id]!)! })),
      edges: shape.edges,
      concurrency: 4,
    },
  };
}

export interface BootstrapResult {
  email: string;
  /** Present only when the password was generated here and must be shown once. */
  generatedPassword?: string;
  workspaceSlug: string;
}

/**
 * On an empty database, creates the demo workspace, its agents and an
 * owner. Returns undefined when there was anything to keep. Serialised with an
 * advisory lock so that instances starting together create it once.
 */
export async function bootstrapIfEmpty(
  db: Db,
  options: { ownerEmail?: string; ownerPassword?: string; model?: string },
): Promise<BootstrapResult | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK_KEY})`);
    if ((await countUsers(tx)) > 0) return undefined;

    const email = options.ownerEmail ?? DEFAULT_OWNER_EMAIL;
    const password = options.ownerPassword ?? generatePassword();
    const owner = await createUser(tx, { email, name: "Owner", password });
    const workspace = await createWorkspace(tx, { name: "Demo", slug: "demo", ownerId: owner.id });
    const made = await tx
      .insert(agents)
      .values(demoAgents.map((agent) => ({ ...agent, tools: [...agent.tools], workspaceId: workspace.id, model: options.model ?? "offline" })))
      .returning({ id: agents.id, handle: agents.handle });
    await tx.insert(missions).values(demoCrew(workspace.id, owner.id, new Map(made.map((a) => [a.handle, a.id]))));
    await recordAudit(tx, {
      workspaceId: workspace.id,
      actor: { kind: "system" },
      action: "installation.bootstrapped",
      detail: { ownerEmail: owner.email, agents: demoAgents.map((a) => a.handle) },
    });
    return {
      email: owner.email,
      generatedPassword: options.ownerPassword ? undefined : password,
      workspaceSlug: workspace.slug,
    };
  });
}
