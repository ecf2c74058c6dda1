// CPU and RSS of a process and all its descendants, read from /proc (Linux). A reaped child's CPU is in its
// parent's cutime/cstime; a live one's is read from its own stat, so a sum over the live tree counts every
// process that ever ran under the root exactly once.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux
const PAGE_BYTES = 4096;

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in ms. */
  cpuMs: number;
  rssBytes: number;
}

function readStat(pid: number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name is in parentheses and may hold spaces: fields start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i: number): number => Number(f[i - 3]);
  return { pid, ppid: n(4), cpuMs: (n(14) + n(15) + n(16) + n(17)) * TICK_MS, rssBytes: n(24) * PAGE_BYTES };
}

/** The root and its live descendants. */
export function treeOf(root: number): Stat[] {
  const all: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = readStat(pid);
    if (s) all.push(s);
  }
  const byParent = new Map<number, Stat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const rootStat = all.find((s) => s.pid === root);
  if (!rootStat) return [];
  const out = [rootStat];
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get((out[i] as Stat).pid) ?? []));
  return out;
}

/** CPU ms the tree used so far (reaped descendants included) and its RSS now. */
export function sampleTree(root: number): { cpuMs: number; rssBytes: number; processes: number } {
  const tree = treeOf(root);
  return {
    cpuMs: tree.reduce((sum, s) => sum + s.cpuMs, 0),
    rssBytes: tree.reduce((sum, s) => sum + s.rssBytes, 0),
    processes: tree.length,
  };
}
