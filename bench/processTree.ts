// CPU and RSS of a process and all its descendants, read from /proc (Linux). A reaped child's CPU is in its
// parent's cutime/cstime; a live one's is read from its own stat, so a sum over the live tree counts every
// process that ever ran under the root exactly once. Memory, four ways: a sum of RSS counts a page shared by two
// processes (the node binary's text) in each; PSS (smaps_rollup) splits a shared page among every process mapping
// it, other node processes on the machine included, so it falls as more run; USS is what each process alone holds;
// distinct pages (pagemap frames) count each physical page the tree holds once: what it really occupies.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

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

/** A process's PSS and USS in bytes (smaps_rollup, in kB); 0 when the kernel does not expose it. */
export function sharesOf(pid: number): { pssBytes: number; ussBytes: number } {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return { pssBytes: 0, ussBytes: 0 };
  }
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { pssBytes: kb('Pss'), ussBytes: kb('Private_Clean') + kb('Private_Dirty') };
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

export interface TreeMemory {
  rssBytes: number;
  pssBytes: number;
  ussBytes: number;
  /** Each process of the tree, root first. */
  each: Array<{ pid: number; rssBytes: number; pssBytes: number; ussBytes: number }>;
}

/** RSS, PSS and USS of the tree now, summed and per process (smaps_rollup walks page tables: not for hot loops). */
export function memoryOfTree(root: number): TreeMemory {
  const each = treeOf(root).map((s) => ({ pid: s.pid, rssBytes: s.rssBytes, ...sharesOf(s.pid) }));
  return {
    rssBytes: each.reduce((sum, s) => sum + s.rssBytes, 0),
    pssBytes: each.reduce((sum, s) => sum + s.pssBytes, 0),
    ussBytes: each.reduce((sum, s) => sum + s.ussBytes, 0),
    each,
  };
}

/** Address ranges of `pid` with resident pages, from /proc/<pid>/smaps. */
function residentRanges(pid: number): Array<[number, number]> {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return [];
  }
  const ranges: Array<[number, number]> = [];
  let current: [number, number] | null = null;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (head) current = [Number.parseInt(head[1] as string, 16), Number.parseInt(head[2] as string, 16)];
    else if (current && line.startsWith('Rss:') && !/^Rss:\s+0 kB/.test(line)) ranges.push(current);
  }
  return ranges;
}

/**
 * Bytes of physical memory the tree occupies, each page once however many of its processes map it (a page it
 * shares with a process outside the tree counts too): the page frames of /proc/<pid>/pagemap. Null when the
 * kernel hides frame numbers (reading them needs CAP_SYS_ADMIN).
 */
export function distinctBytesOfTree(root: number): number | null {
  const frames = new Set<bigint>();
  let hidden = true;
  for (const { pid } of treeOf(root)) {
    let fd: number;
    try {
      fd = openSync(`/proc/${pid}/pagemap`, 'r');
    } catch {
      continue;
    }
    try {
      for (const [start, end] of residentRanges(pid)) {
        const pages = (end - start) / PAGE_BYTES;
        const buf = Buffer.alloc(pages * 8);
        readSync(fd, buf, 0, buf.length, (start / PAGE_BYTES) * 8);
        for (let i = 0; i < pages; i++) {
          const entry = buf.readBigUInt64LE(i * 8);
          if (entry >> 63n === 0n) continue; // not present
          const frame = entry & ((1n << 55n) - 1n);
          if (frame === 0n) continue; // present, but the kernel hides its frame from us
          hidden = false;
          frames.add(frame);
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  return hidden ? null : frames.size * PAGE_BYTES;
}
