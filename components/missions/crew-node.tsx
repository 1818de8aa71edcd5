"use client";

import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import type { NodeState } from "@/lib/missions/mission-schemas";
import { nodeStateClasses, nodeStateLabels } from "./mission-display";

export interface CrewNodeData extends Record<string, unknown> {
  role: string;
  agentHandle: string | null;
  state?: NodeState;
  detail?: string;
  /** The save was refused because of this node. */
  faulty?: boolean;
}

export type CrewFlowNode = Node<CrewNodeData, "crew">;

/** One role of a crew on the canvas: role, agent, and (in a mission) its state and usage. */
export const CrewNodeCard = memo(function CrewNodeCard({ data, selected }: NodeProps<CrewFlowNode>) {
  const tone = data.faulty ? "border-rose-600 bg-rose-50 ring-2 ring-rose-300" : data.state ? nodeStateClasses[data.state] : "border-slate-300 bg-surface";
  return (
    <div
      data-state={data.state ?? "edit"}
      data-faulty={data.faulty ? "true" : undefined}
      className={`w-44 rounded-md border-2 px-3 py-2 text-left shadow-sm ${tone} ${selected ? "outline-2 outline-offset-2 outline-indigo-400" : ""}`}
    >
      <Handle type="target" position={Position.Left} className="!h-3 !w-3 !bg-slate-500" />
      <p className="truncate text-sm font-semibold text-slate-900">{data.role}</p>
      <p className="truncate font-mono text-xs text-slate-600">{data.agentHandle ? `@${data.agentHandle}` : "no agent"}</p>
      {data.state ? <p className="mt-1 text-xs font-medium text-slate-800">{nodeStateLabels[data.state]}</p> : null}
      {data.detail ? <p className="truncate text-xs text-slate-600">{data.detail}</p> : null}
      <Handle type="source" position={Position.Right} className="!h-3 !w-3 !bg-slate-500" />
    </div>
  );
});

export const crewNodeTypes = { crew: CrewNodeCard };
