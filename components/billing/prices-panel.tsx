"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../ui/toaster";
import { useState } from "react";
import { priceListSchema, type PriceList } from "@/lib/billing/billing-schemas";
import type { ModelPrice } from "@/lib/billing/prices";
import { billingKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { stacked, stackedCell } from "../ui/stacked-table";

const fields = [
  { id: "input", label: "Input" },
  { id: "output", label: "Output" },
  { id: "cacheRead", label: "Cache read" },
  { id: "cacheWrite", label: "Cache write" },
] as const satisfies readonly { id: keyof ModelPrice; label: string }[];

type DraftPrice = { model: string } & Record<keyof ModelPrice, string>;

const toDraft = (model: string, p: ModelPrice): DraftPrice => ({ model, input: String(p.input), output: String(p.output), cacheRead: String(p.cacheRead), cacheWrite: String(p.cacheWrite) });
const usd = (n: number) => `$${n.toLocaleString("en-US", { maximumFractionDigits: 6 })}`;

export function PricesPanel({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({ queryKey: billingKeys.prices(slug), queryFn: () => api("/api/prices", { schema: priceListSchema }) });
  if (!query.data) return <p className="text-sm text-slate-500">{query.isError ? "Could not load the prices." : "Loading prices…"}</p>;
  return <PricesEditor list={query.data} canEdit={canEdit} />;
}

function PricesEditor({ list, canEdit }: { list: PriceList; canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<DraftPrice[]>(() => list.prices.filter((p) => p.source === "workspace").map((p) => toDraft(p.model, p)));
  const [ownDefault, setOwnDefault] = useState(list.defaultPrice.source === "workspace");
  const [fallback, setFallback] = useState<DraftPrice>(() => toDraft("*", list.defaultPrice));
  const [ownCompute, setOwnCompute] = useState(list.compute.source === "workspace");
  const [compute, setCompute] = useState(String(list.compute.usdPerSecond));
  const save = useMutation({
    mutationFn: () => {
      const price = (d: DraftPrice) => ({ input: Number(d.input), output: Number(d.output), cacheRead: Number(d.cacheRead), cacheWrite: Number(d.cacheWrite) });
      return api("/api/prices", {
        method: "PUT",
        body: {
          prices: rows.map((r) => ({ model: r.model.trim(), ...price(r) })),
          defaultPrice: ownDefault ? price(fallback) : null,
          compute: ownCompute ? { usdPerSecond: Number(compute) } : null,
        },
        schema: priceListSchema,
      });
    },
    onSuccess: (data) => {
      queryClient.setQueryData(billingKeys.prices(slug), data);
      toast.success("Prices saved.");
    },
  });
  const builtIn = list.prices.filter((p) => p.source === "built-in");
  const update = (i: number, field: keyof DraftPrice, value: string) => setRows((r) => r.map((row, j) => (j === i ? { ...row, [field]: value } : row)));

  const priceInputs = (row: DraftPrice, onChange: (field: keyof ModelPrice, value: string) => void, name: string) =>
    fields.map((f) => (
      <td key={f.id} data-label={f.label} className={stackedCell({ align: "right", tight: true, className: "sm:px-2" })}>
        <input
          className="input w-24 py-1 text-right tabular-nums disabled:bg-slate-50 disabled:text-slate-600"
          inputMode="decimal"
          aria-label={`${f.label} price of ${name}, US dollars per million tokens`}
          disabled={!canEdit}
          value={row[f.id]}
          onChange={(e) => onChange(f.id, e.target.value)}
        />
      </td>
    ));

  return (
    <form
      className="space-y-4"
      aria-label="Prices"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <section className="card overflow-x-auto" aria-label="Workspace prices">
        <table className={stacked.table}>
          <thead className={stacked.head}>
            <tr>
              <th className="px-4 py-2">Model or prefix</th>
              {fields.map((f) => (
                <th key={f.id} className="px-2 py-2 text-right">
                  {f.label}
                </th>
              ))}
              <th className="relative px-2 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {rows.length === 0 ? (
              <tr className={stacked.row}>
                <td colSpan={6} className="block px-4 py-2 text-slate-500 sm:table-cell sm:py-4">
                  No prices of this workspace&apos;s own: the built-in list below applies.
                </td>
              </tr>
            ) : null}
            {rows.map((row, i) => (
              <tr key={i} className={stacked.row} data-testid="workspace-price">
                <td data-label="Model or prefix" className={stackedCell({ tight: true })}>
                  <input
                    className="input min-w-0 flex-1 py-1 font-mono text-xs disabled:bg-slate-50 disabled:text-slate-600 sm:w-56"
                    aria-label="Model or prefix" required disabled={!canEdit} value={row.model} onChange={(e) => update(i, "model", e.target.value)} />
                </td>
                {priceInputs(row, (field, value) => update(i, field, value), row.model || "the new model")}
                <td className={stackedCell({ align: "right", tight: true, className: "justify-end sm:px-2" })}>
                  {canEdit ? (
                    <button type="button" className="btn-danger py-1 text-xs" onClick={() => setRows((r) => r.filter((_, j) => j !== i))}>
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
            <tr className={`${stacked.row} bg-slate-50/60`}>
              <td className="block px-4 py-1 sm:table-cell sm:py-1.5">
                <label className="flex items-center gap-2 text-sm">
                  <input type="checkbox" disabled={!canEdit} checked={ownDefault} onChange={(e) => setOwnDefault(e.target.checked)} />
                  Any other model (default, flagged)
                </label>
              </td>
              {ownDefault ? (
                priceInputs(fallback, (field, value) => setFallback((f) => ({ ...f, [field]: value })), "models without a price")
              ) : (
                <td colSpan={4} className="block px-4 py-1 text-xs text-slate-500 sm:table-cell sm:px-2 sm:py-1.5 sm:text-right">
                  built-in default: {usd(list.defaultPrice.input)} / {usd(list.defaultPrice.output)} / {usd(list.defaultPrice.cacheRead)} / {usd(list.defaultPrice.cacheWrite)}
                </td>
              )}
              <td className="hidden sm:table-cell" />
            </tr>
          </tbody>
        </table>
        <div className="flex flex-wrap items-center gap-3 border-t border-slate-100 px-4 py-3">
          <p className="min-w-60 flex-1 text-xs text-slate-500">
            US dollars per million tokens, up to six decimals (1 credit = $0.000001). The longest matching model id or prefix wins over the
            built-in list; a model with no price is charged at the default and flagged on the usage page. New prices apply from the next model call.
          </p>
          {canEdit ? (
            <>
              <button type="button" className="btn-secondary" onClick={() => setRows((r) => [...r, { model: "", input: "0", output: "0", cacheRead: "0", cacheWrite: "0" }])}>
                Add a price
              </button>
              <button className="btn-primary" disabled={save.isPending}>
                {save.isPending ? "Saving…" : "Save prices"}
              </button>
            </>
          ) : (
            <span className="text-xs text-slate-500">Managers and owners change prices.</span>
          )}
        </div>
        {save.isError ? (
          <ErrorNotice error={save.error} fallback="Could not save the prices." className="border-t border-rose-100 bg-rose-50 px-4 py-2" />
        ) : null}
      </section>

      <section className="card space-y-2 p-4" aria-label="Compute price">
        <h3 className="text-sm font-semibold">Agents&apos; computers</h3>
        <p className="text-xs text-slate-500">
          Every command an agent runs and every page its browser opens is charged by the second it took, beside its model calls: it counts
          towards spend and budgets, and shows as its own source on the usage page.
        </p>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" disabled={!canEdit} checked={ownCompute} onChange={(e) => setOwnCompute(e.target.checked)} />
          Our own price
        </label>
        {ownCompute ? (
          <label className="flex flex-wrap items-center gap-2 text-sm">
            <input
              className="input w-32 py-1 text-right tabular-nums disabled:bg-slate-50"
              inputMode="decimal"
              aria-label="Price of a second of an agent's computer, US dollars"
              disabled={!canEdit}
              value={compute}
              onChange={(e) => setCompute(e.target.value)}
            />
            US dollars per second
          </label>
        ) : (
          <p className="text-sm text-slate-700" data-testid="compute-price">
            Built-in: {usd(list.compute.usdPerSecond)} per second (about {usd(Math.round(list.compute.usdPerSecond * 3600 * 100) / 100)} an hour).{" "}
            <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">nominal: the computers run on this server</span>
          </p>
        )}
      </section>

      <section className="card overflow-x-auto" aria-label="Built-in prices">
        <table className={stacked.table}>
          <thead className={stacked.head}>
            <tr>
              <th className="px-4 py-2">Built-in list</th>
              {fields.map((f) => (
                <th key={f.id} className="px-4 py-2 text-right">
                  {f.label}
                </th>
              ))}
              <th className="relative px-4 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {builtIn.map((p) => (
              <tr key={p.model} className={`${stacked.row} ${p.overridden ? "text-slate-500" : ""}`}>
                <td className={stacked.title}>
                  <span className="font-mono text-xs">{p.model}</span>
                  <span className="ml-1 text-xs text-slate-500">and ids that start with it</span>
                  {p.nominal ? <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">nominal: nothing is really spent</span> : null}
                  {p.overridden ? <span className="ml-2 text-xs">(replaced above)</span> : null}
                </td>
                {fields.map((f) => (
                  <td key={f.id} data-label={f.label} className={stackedCell({ align: "right", className: "tabular-nums" })}>
                    {usd(p[f.id])}
                  </td>
                ))}
                <td className={stackedCell({ align: "right", className: "justify-end" })}>
                  {canEdit && !rows.some((r) => r.model === p.model) ? (
                    <button type="button" className="btn-secondary py-1 text-xs" onClick={() => setRows((r) => [...r, toDraft(p.model, p)])}>
                      Set our own
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </form>
  );
}
