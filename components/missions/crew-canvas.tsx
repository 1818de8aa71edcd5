"use client";

import "@xyflow/react/dist/style.css";
import { useQueryClient } from "@tanstack/react-query";
import { addEdge, Background, Controls, MarkerType, ReactFlow, useEdgesState, useNodesState, type Connection, type Edge } from "@xyflow/react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { isAppError } from "@/lib/errors";
import { crewTemplate, DEFAULT_MAX_ROUNDS, reviewLoopOf, type TemplateName } from "@/lib/missions/topology";
import type { AgentSummary } from "@/lib/agents/agent-schemas";
import { errorText } from "../ui/error-text";
import { useApi, useWorkspace } from "../providers";
import { useTheme } from "next-themes";
import { crewNodeTypes, type CrewFlowNode } from "./crew-node";
import { missionKeys } from "@/lib/client/query-keys";
import type { CrewItem } from "@/lib/missions/mission-schemas";
import { layoutPositions } from "./mission-display";

const templates: { name: TemplateName; label: string }[] = [
  { name: "pipeline", label: "Pipeline (A → B → C)" },
  { name: "lead-and-workers", label: "Lead and workers" },
  { name: "review-loop", label: "Review loop (maker ↔ checker)" },
  { name: "graph", label: "Graph with a join" },
];

const edgeOf = (from: string, to: string, faulty = false): Edge => ({
  id: `${from}->${to}`,
  source: from,
  target: to,
  markerEnd: { type: MarkerType.ArrowClosed },
  style: faulty ? { stroke: "#e11d48", strokeWidth: 3 } : undefined,
  ariaLabel: `${from} to ${to}`,
});

interface Fault {
  message: string;
  node?: string;
  edge?: { from: string; to: string };
}

/**
 * The crew editor's canvas and form: templates, nodes bound to agents, handoffs drawn between handles.
 * Loaded on its own by CrewEditor (the canvas library is most of the editor's script).
 */
export function CanvasEditor({ crewId, crew, agents }: { crewId: string | null; crew: CrewItem | null; agents: AgentSummary[] }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const queryClient = useQueryClient();
  const id = useId();
  const { resolvedTheme } = useTheme();
  const [initial] = useState(() => {
    if (!crew) return { nodes: [] as CrewFlowNode[], edges: [] as Edge[] };
    const positions = layoutPositions(crew.nodes, crew.edges);
    return {
      nodes: crew.nodes.map((n): CrewFlowNode => ({ id: n.id, type: "crew", position: positions.get(n.id)!, data: { role: n.role, agentHandle: n.agentHandle, agentId: n.agentId, instructions: n.instructions } })),
      edges: crew.edges.map((e) => edgeOf(e.from, e.to)),
    };
  });
  const [nodes, setNodes, onNodesChange] = useNodesState<CrewFlowNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [name, setName] = useState(crew?.name ?? "");
  const [goal, setGoal] = useState(crew?.goal ?? "");
  const [maxRounds, setMaxRounds] = useState(crew?.maxRounds ?? DEFAULT_MAX_ROUNDS);
  const [template, setTemplate] = useState<TemplateName>("lead-and-workers");
  const [selected, setSelected] = useState<string | null>(null);
  const [fault, setFault] = useState<Fault | null>(null);
  const [saving, setSaving] = useState(false);
  const firstAgent = agents[0];

  const applyTemplate = (which: TemplateName) => {
    const shape = crewTemplate(which);
    // A crew of different agents from the start: one per node in turn, the merge back with its lead.
    const agentOf = new Map<string, AgentSummary | undefined>();
    let next = 0;
    for (const n of shape.nodes) {
      const lead = n.id === "merge" ? agentOf.get("lead") : undefined;
      agentOf.set(n.id, lead ?? (agents.length > 0 ? agents[next++ % agents.length] : undefined));
    }
    setNodes(
      shape.nodes.map((n) => ({
        id: n.id,
        type: "crew",
        position: n.position,
        data: { role: n.role, agentHandle: agentOf.get(n.id)?.handle ?? null, agentId: agentOf.get(n.id)?.id ?? "", instructions: n.instructions },
      })),
    );
    setEdges(shape.edges.map((e) => edgeOf(e.from, e.to)));
    if (shape.maxRounds) setMaxRounds(shape.maxRounds);
    setSelected(null);
    setFault(null);
  };

  const addNode = () => {
    let n = nodes.length + 1;
    while (nodes.some((x) => x.id === `node${n}`)) n += 1;
    const nodeId = `node${n}`;
    setNodes((list) => [
      ...list,
      { id: nodeId, type: "crew", position: { x: 40 * (n % 5), y: 140 + 40 * (n % 4) }, data: { role: `Role ${n}`, agentHandle: firstAgent?.handle ?? null, agentId: firstAgent?.id ?? "", instructions: "" } },
    ]);
    setSelected(nodeId);
  };

  const updateSelected = (patch: Partial<{ role: string; agentId: string; instructions: string }>) => {
    setNodes((list) =>
      list.map((n) => {
        if (n.id !== selected) return n;
        const agent = patch.agentId !== undefined ? agents.find((a) => a.id === patch.agentId) : undefined;
        return { ...n, data: { ...n.data, ...patch, ...(agent ? { agentHandle: agent.handle } : {}) } };
      }),
    );
  };

  const removeSelected = () => {
    setNodes((list) => list.filter((n) => n.id !== selected));
    setEdges((list) => list.filter((e) => e.source !== selected && e.target !== selected));
    setSelected(null);
  };
  const removeHandoff = (from: string, to: string) => setEdges((list) => list.filter((e) => !(e.source === from && e.target === to)));
  const addHandoff = (from: string, to: string) => setEdges((list) => addEdge({ source: from, target: to, sourceHandle: null, targetHandle: null, markerEnd: { type: MarkerType.ArrowClosed } }, list));
  const roleOf = (nodeId: string) => String(nodes.find((n) => n.id === nodeId)?.data.role ?? nodeId);

  const shape = { nodes: nodes.map((n) => ({ id: n.id, role: String(n.data.role) })), edges: edges.map((e) => ({ from: e.source, to: e.target })) };
  const hasLoop = !!reviewLoopOf(shape);

  const save = async () => {
    setSaving(true);
    setFault(null);
    const body = {
      name,
      ...(goal.trim() ? { goal } : {}),
      nodes: nodes.map((n) => ({ id: n.id, role: String(n.data.role), agentId: String(n.data.agentId ?? "") || undefined, instructions: String(n.data.instructions ?? ""), position: n.position })),
      edges: shape.edges,
      ...(hasLoop ? { maxRounds } : {}),
    };
    try {
      if (crewId) await api(`/api/crews/${crewId}`, { method: "PATCH", body });
      else await api(`/api/crews`, { method: "POST", body });
      void queryClient.invalidateQueries({ queryKey: missionKeys.crews(slug) });
      router.push(`/w/${slug}/missions`);
    } catch (error) {
      const details = isAppError(error) ? (error.details as { node?: string; edge?: { from: string; to: string } } | { path?: string }[] | undefined) : undefined;
      let node: string | undefined;
      let edge: { from: string; to: string } | undefined;
      if (Array.isArray(details)) {
        const index = details[0]?.path?.match(/^nodes\.(\d+)/)?.[1];
        if (index !== undefined) node = nodes[Number(index)]?.id;
      } else if (details) {
        node = details.node;
        edge = details.edge;
      }
      setFault({ message: errorText(error, "Could not save the crew."), node, edge });
    } finally {
      setSaving(false);
    }
  };

  const shownNodes = nodes.map((n) => ({ ...n, data: { ...n.data, faulty: fault?.node === n.id } }));
  const shownEdges = edges.map((e) => (fault?.edge && fault.edge.from === e.source && fault.edge.to === e.target ? edgeOf(e.source, e.target, true) : e));
  const current = nodes.find((n) => n.id === selected);

  return (
    <div className="mx-auto w-full min-w-0 max-w-6xl space-y-4">
      <header>
        <p className="text-sm text-slate-600">
          <Link href={`/w/${slug}/missions`} className="hover:underline">Missions</Link>
        </p>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight">{crewId ? "Edit crew" : "New crew"}</h1>
      </header>
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-name`} className="label">Name</label>
          <input id={`${id}-name`} className="input" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} />
        </div>
        <div>
          <label htmlFor={`${id}-goal`} className="label">Suggested goal</label>
          <input id={`${id}-goal`} className="input" value={goal} onChange={(e) => setGoal(e.target.value)} maxLength={4000} />
        </div>
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <div>
          <label htmlFor={`${id}-template`} className="label">Template</label>
          <select id={`${id}-template`} className="input" value={template} onChange={(e) => setTemplate(e.target.value as TemplateName)}>
            {templates.map((t) => (
              <option key={t.name} value={t.name}>{t.label}</option>
            ))}
          </select>
        </div>
        <button type="button" className="btn-secondary" onClick={() => applyTemplate(template)}>Use template</button>
        <button type="button" className="btn-secondary" onClick={addNode}>Add node</button>
        {hasLoop ? (
          <div>
            <label htmlFor={`${id}-rounds`} className="label">Review rounds</label>
            <input id={`${id}-rounds`} type="number" min={1} max={10} className="input w-24" value={maxRounds} onChange={(e) => setMaxRounds(Number(e.target.value) || 1)} />
          </div>
        ) : null}
      </div>
      <p className="text-xs text-slate-600">Drag nodes to arrange them; draw a handoff from a node&apos;s right handle to another&apos;s left handle. Select a node to edit it, hand it off to another or remove it (or select a node or edge and press Backspace).</p>

      <div className="grid gap-4 lg:grid-cols-[1fr_18rem]">
        <section aria-label="Crew canvas" className="card relative h-96 w-full min-w-0 overflow-hidden">
          <ReactFlow
      colorMode={resolvedTheme === "dark" ? "dark" : "light"}
            nodes={shownNodes}
            edges={shownEdges}
            nodeTypes={crewNodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={(c: Connection) => setEdges((list) => addEdge({ ...c, markerEnd: { type: MarkerType.ArrowClosed } }, list))}
            onNodeClick={(_, node) => setSelected(node.id)}
            onPaneClick={() => setSelected(null)}
            fitView
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls />
          </ReactFlow>
        </section>
        <aside aria-label="Selected node" className="card space-y-3 p-4">
          {current ? (
            <>
              <p className="font-mono text-xs text-slate-600">Node {current.id}</p>
              <div>
                <label htmlFor={`${id}-role`} className="label">Role</label>
                <input id={`${id}-role`} className="input" value={String(current.data.role)} onChange={(e) => updateSelected({ role: e.target.value })} maxLength={60} />
              </div>
              <div>
                <label htmlFor={`${id}-agent`} className="label">Agent</label>
                <select id={`${id}-agent`} className="input" value={String(current.data.agentId ?? "")} onChange={(e) => updateSelected({ agentId: e.target.value })}>
                  <option value="">Choose an agent</option>
                  {agents.map((a) => (
                    <option key={a.id} value={a.id}>@{a.handle}</option>
                  ))}
                </select>
              </div>
              <div>
                <label htmlFor={`${id}-instructions`} className="label">Instructions</label>
                <textarea id={`${id}-instructions`} className="input" rows={4} value={String(current.data.instructions ?? "")} onChange={(e) => updateSelected({ instructions: e.target.value })} maxLength={4000} />
              </div>
              <Handoffs
                nodeId={current.id}
                roleOf={roleOf}
                edges={shape.edges}
                others={nodes.filter((n) => n.id !== current.id).map((n) => n.id)}
                selectId={`${id}-handoff`}
                onAdd={addHandoff}
                onRemove={removeHandoff}
              />
              <button type="button" className="btn-danger w-full" onClick={removeSelected}>
                Remove node
              </button>
            </>
          ) : (
            <p className="text-sm text-slate-600">Select a node to set its role, agent and instructions.</p>
          )}
        </aside>
      </div>
      {fault ? (
        <p role="alert" className="text-sm text-rose-700">
          {fault.message}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn-primary" onClick={() => void save()} disabled={saving || nodes.length === 0 || !name.trim()}>
          {saving ? "Saving…" : "Save crew"}
        </button>
        <Link href={`/w/${slug}/missions`} className="btn-secondary">Cancel</Link>
      </div>
    </div>
  );
}

/**
 * The selected node's handoffs as a list, each with a way to remove it, and a way to add one: the same edits as
 * drawing and Backspace on the canvas, for touch screens and keyboards.
 */
function Handoffs({ nodeId, roleOf, edges, others, selectId, onAdd, onRemove }: {
  nodeId: string;
  roleOf: (nodeId: string) => string;
  edges: { from: string; to: string }[];
  others: string[];
  selectId: string;
  onAdd: (from: string, to: string) => void;
  onRemove: (from: string, to: string) => void;
}) {
  const mine = edges.filter((e) => e.from === nodeId || e.to === nodeId);
  const free = others.filter((other) => !edges.some((e) => e.from === nodeId && e.to === other));
  return (
    <div className="space-y-1.5">
      <h3 className="label">Handoffs</h3>
      {mine.length === 0 ? <p className="text-xs text-slate-600">None yet.</p> : null}
      <ul className="space-y-1" aria-label="Handoffs of this node">
        {mine.map((e) => (
          <li key={`${e.from}-${e.to}`} className="flex items-center gap-2 text-sm">
            <span className="min-w-0 flex-1 wrap-anywhere">
              {roleOf(e.from)} → {roleOf(e.to)}
            </span>
            <button type="button" className="btn-secondary shrink-0 px-2 py-1 text-xs" onClick={() => onRemove(e.from, e.to)} aria-label={`Remove the handoff ${roleOf(e.from)} to ${roleOf(e.to)}`}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {free.length > 0 ? (
        <div>
          <label htmlFor={selectId} className="sr-only">
            Hand off to
          </label>
          <select
            id={selectId}
            className="input text-sm"
            value=""
            onChange={(e) => {
              if (e.target.value) onAdd(nodeId, e.target.value);
            }}
          >
            <option value="">Hand off to…</option>
            {free.map((other) => (
              <option key={other} value={other}>
                {roleOf(other)}
              </option>
            ))}
          </select>
        </div>
      ) : null}
    </div>
  );
}
