"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/**
 * The usage page's charts. recharts is most of that page's script, so the page loads this module on its own
 * (next/dynamic, browser only) and shows a box of the same size meanwhile. Colours come from the theme's
 * variables, so the grid, axes and tooltip read in dark mode too.
 */

export type ChartPoint = Record<string, number | string>;

const axisTick = { fontSize: 11, fill: "var(--color-slate-600)" };
const gridStroke = "var(--color-slate-200)";
const tooltipStyle = { backgroundColor: "var(--color-surface)", borderColor: "var(--color-slate-200)", color: "var(--color-slate-800)", fontSize: 12 };

/** Stacked bars per hour or day, one colour per group (an agent in its own colour); a bucket without usage is a zero, never a slope. */
export function UsageBars(props: {
  chart: ChartPoint[];
  keys: string[];
  colors: Map<string, string>;
  name: (key: string) => string;
  field: "credits" | "tokens";
  /** A value in the tooltip, and on the axis unless `formatTick` is given. */
  format: (value: number) => string;
  formatTick?: (value: number) => string;
}) {
  const { chart, keys, colors, name, field, format, formatTick = format } = props;
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={chart} margin={{ top: 4, right: 8, left: 8, bottom: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke={gridStroke} />
        <XAxis dataKey="label" tick={axisTick} stroke={gridStroke} minTickGap={16} />
        <YAxis tick={axisTick} stroke={gridStroke} tickFormatter={(v: number) => formatTick(v)} width={64} />
        <Tooltip
          contentStyle={tooltipStyle}
          labelStyle={{ color: "var(--color-slate-800)" }}
          cursor={{ fill: "var(--color-slate-100)" }}
          formatter={(value, series) => [format(Number(value)), String(series)]}
        />
        <Legend formatter={(series) => <span style={{ color: "var(--color-slate-700)" }}>{String(series)}</span>} wrapperStyle={{ fontSize: 12 }} />
        {keys.map((key) => (
          <Bar key={key} dataKey={`${field}:${key}`} name={name(key)} stackId={field} fill={colors.get(key)} maxBarSize={48} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
