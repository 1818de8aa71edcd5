"use client";

import "@xyflow/react/dist/style.css";
import { Background, Controls, MarkerType, ReactFlow, type Edge } from "@xyflow/react";
import { useTheme } from "next-themes";
import { crewNodeTypes, type CrewFlowNode } from "./crew-node";

/**
 * A running or finished mission's crew as a graph, read-only: a click on a node opens its latest run.
 * Loaded on its own by the mission page (the canvas library is most of that page's script).
 */
export function MissionGraph({ nodes, edges, onOpen }: { nodes: CrewFlowNode[]; edges: Edge[]; onOpen: (nodeId: string) => void }) {
  // The canvas's own controls, background and edges in the page's theme.
  const { resolvedTheme } = useTheme();
  return (
    <ReactFlow
      colorMode={resolvedTheme === "dark" ? "dark" : "light"}
      nodes={nodes}
      edges={edges.map((e) => ({ ...e, markerEnd: { type: MarkerType.ArrowClosed } }))}
      nodeTypes={crewNodeTypes}
      fitView
      nodesDraggable={false}
      nodesConnectable={false}
      onNodeClick={(_, node) => onOpen(node.id)}
      proOptions={{ hideAttribution: true }}
    >
      <Background />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}
