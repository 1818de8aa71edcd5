"use client";

import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { CREDITS_PER_USD } from "@/lib/billing/prices";
import { formatCount, formatUsd } from "./format";

const palette = ["#6366f1", "#0ea5e9", "#10b981", "#f59e0b", "#ec4899", "#8b5cf6", "#94a3b8"];

export type ChartPoint = Record<string, number | string>;

/**
 * The usage page's charts. recharts is most of that page's script, so the page loads this module on its own
 * (next/dynamic, browser only) and shows a box of the same size meanwhile.
 */
export function SpendChart({ chart, keys, name }: { chart: ChartPoint[]; keys: string[]; name: (key: string) => string }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={chart} margin={{ top: 4, right: 8, left: 8, bottom: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
        <XAxis dataKey="label" tick={{ fontSize: 11 }} minTickGap={16} />
        <YAxis tick={{ fontSize: 11 }} tickFormatter={(v: number) => formatUsd(v * CREDITS_PER_USD)} width={64} />
        <Tooltip formatter={(value, key) => [formatUsd(Number(value) * CREDITS_PER_USD), name(String(key))]} />
        <Legend formatter={(key) => name(String(key))} wrapperStyle={{ fontSize: 12 }} />
        {keys.map((key, i) => (
          <Bar key={key} dataKey={key} stackId="spend" fill={palette[i % palette.length]} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}

export function TokensChart({ chart }: { chart: ChartPoint[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      {chart.length < 2 ? (
        // An area needs two points: a range of one hour (early in the day) is drawn as one bar.
        <BarChart data={chart} margin={{ top: 4, right: 8, left: 8, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
          <XAxis dataKey="label" tick={{ fontSize: 11 }} />
          <YAxis tick={{ fontSize: 11 }} tickFormatter={(v: number) => formatCount(v)} width={64} />
          <Tooltip formatter={(value) => [formatCount(Number(value)), "Tokens"]} />
          <Bar dataKey="tokens" fill="#6366f1" maxBarSize={48} isAnimationActive={false} />
        </BarChart>
      ) : (
        <AreaChart data={chart} margin={{ top: 4, right: 8, left: 8, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
          <XAxis dataKey="label" tick={{ fontSize: 11 }} minTickGap={16} />
          <YAxis tick={{ fontSize: 11 }} tickFormatter={(v: number) => formatCount(v)} width={64} />
          <Tooltip formatter={(value) => [formatCount(Number(value)), "Tokens"]} />
          <Area type="monotone" dataKey="tokens" stroke="#6366f1" fill="#c7d2fe" isAnimationActive={false} />
        </AreaChart>
      )}
    </ResponsiveContainer>
  );
}
