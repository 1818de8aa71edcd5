// What the benchmarks read of this machine's processes from Linux's /proc: a process tree's RSS and CPU time, the
// database's backends' CPU time, and the whole machine's.
import fs from "node:fs";

/** Every process under `pid` (the start script, the Next.js server). */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      const children = fs.readFileSync(`/proc/${all[i]}/task/${all[i]}/children`, "utf8").trim();
      if (children) all.push(...children.split(/\s+/).map(Number));
    } catch {
      // The process ended meanwhile.
    }
  }
  return all;
}

/** RSS (MB) and CPU time (ms) of a process tree, from /proc. */
export function usageOf(pid: number): { rssMb: number; cpuMs: number } {
  let rssMb = 0;
  let cpuMs = 0;
  for (const p of processTree(pid)) {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, "utf8");
      rssMb += Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpuMs += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // The process ended meanwhile.
    }
  }
  return { rssMb, cpuMs };
}

/**
 * CPU time (ms) of the database's backends serving `database` on this machine, from /proc (a backend's title names
 * its database); NaN when there is none to see (a server elsewhere). A backend that ends during a pass takes its time
 * with it: the servers' pools keep theirs open.
 */
export function databaseCpuMs(database: string): number {
  let cpuMs = 0;
  let seen = false;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!title.startsWith("postgres: ") || !title.split(" ").includes(database)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpuMs += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      seen = true;
    } catch {
      // The process ended meanwhile.
    }
  }
  return seen ? cpuMs : Number.NaN;
}

/**
 * Busy and total CPU time of the whole machine so far (ms summed over cores), from /proc/stat: busy is user, nice,
 * system, irq, softirq and steal (guest time is inside user); total adds idle and iowait. Undefined without /proc.
 */
export function machineCpu(): { busyMs: number; totalMs: number } | undefined {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const busy = user + nice + system + irq + softirq + steal;
    // USER_HZ is 100 on Linux.
    return { busyMs: (busy * 1000) / 100, totalMs: ((busy + idle + iowait) * 1000) / 100 };
  } catch {
    return undefined;
  }
}
