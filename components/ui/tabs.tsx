"use client";

import { Tabs as Primitive } from "radix-ui";
import { cn } from "./cn";

/** Tabs with real tab panels and arrow-key movement (Radix roving focus). */
export const Tabs = Primitive.Root;
export const TabsContent = Primitive.Content;

export function TabsList({ className, ...props }: React.ComponentProps<typeof Primitive.List>) {
  return <Primitive.List {...props} className={cn("flex gap-1 overflow-x-auto border-b border-slate-200", className)} />;
}

export function TabsTrigger({ className, ...props }: React.ComponentProps<typeof Primitive.Trigger>) {
  return (
    <Primitive.Trigger
      {...props}
      className={cn(
        "-mb-px shrink-0 border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500",
        "data-[state=active]:border-indigo-600 data-[state=active]:text-indigo-700",
        className,
      )}
    />
  );
}
