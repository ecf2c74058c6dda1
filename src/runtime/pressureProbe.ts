// The pressure readings (reference §4), a thin shell over the OS: free space of the store's filesystem through
// statfs, and the memory of the process's own cgroup against its limit (v2 memory.high, else memory.max; v1
// limit_in_bytes), counting what the kernel cannot reclaim (page cache the process only read does not count).
import { readFile, statfs } from 'node:fs/promises';
import type { PressureReading } from '../supervisor/pressure.js';

/** Takes one reading; injectable so a test can stand in for the filesystem. */
export type PressureProbe = () => Promise<PressureReading>;

/** Where the cgroup filesystem is mounted, and the file naming the process's own cgroup. */
export interface CgroupPaths {
  root: string;
  self: string;
}

const SYSTEM_CGROUP: CgroupPaths = { root: '/sys/fs/cgroup', self: '/proc/self/cgroup' };

/** Reads the filesystem holding `storePath` (null: a store with no filesystem) and the process's cgroup. */
export function systemProbe(storePath: string | null, cgroup: CgroupPaths = SYSTEM_CGROUP): PressureProbe {
  return async () => ({
    diskFreeBytes: storePath === null ? null : await diskFree(storePath),
    memory: await cgroupMemory(cgroup),
  });
}

async function diskFree(path: string): Promise<number> {
  const fs = await statfs(path);
  return fs.bavail * fs.bsize;
}

/**
 * The process's own memory cgroup directories under `root`, from /proc/self/cgroup's text: v2's `0::/path`, v1's
 * line whose controllers include `memory`. The root itself when a line is missing.
 */
export function ownCgroupDirs(root: string, selfText: string): { v2: string; v1: string } {
  const dirs = { v2: root, v1: `${root}/memory` };
  for (const line of selfText.split('\n')) {
    const m = /^(\d+):([^:]*):(\/.*)$/.exec(line.trim());
    if (!m) continue;
    const [, id, controllers = '', path = '/'] = m;
    const rel = path === '/' ? '' : path;
    if (id === '0' && controllers === '') dirs.v2 = `${root}${rel}`;
    else if (controllers.split(',').includes('memory')) dirs.v1 = `${root}/memory${rel}`;
  }
  return dirs;
}

/**
 * In use and limit, or null without a limit (`max`, v1's "unlimited" page-rounded maximum, or no cgroup files).
 * The process's own cgroup first; its directory may not be visible (a container without a cgroup namespace),
 * then the root's.
 */
export async function cgroupMemory(paths: CgroupPaths): Promise<{ current: number; limit: number } | null> {
  const own = ownCgroupDirs(paths.root, (await readText(paths.self)) ?? '');
  for (const dirs of [own, { v2: paths.root, v1: `${paths.root}/memory` }]) {
    const v2 = await readUsage(dirs.v2, V2);
    if (v2 !== undefined) return v2;
    const v1 = await readUsage(dirs.v1, V1);
    if (v1 !== undefined) return v1;
  }
  return null;
}

interface Layout {
  current: string;
  limits: string[];
  /** memory.stat's count of page cache the kernel drops first. */
  inactiveFile: string;
}
const V2: Layout = { current: 'memory.current', limits: ['memory.high', 'memory.max'], inactiveFile: 'inactive_file' };
const V1: Layout = {
  current: 'memory.usage_in_bytes',
  limits: ['memory.limit_in_bytes'],
  inactiveFile: 'total_inactive_file',
};

/** No cgroup limit is this large (v1 reports about 2^63 for "none"). */
const UNLIMITED = 2 ** 60;

/** undefined: no such cgroup here; null: a cgroup without a limit. */
async function readUsage(dir: string, layout: Layout) {
  const current = await readNumber(`${dir}/${layout.current}`);
  if (current === null) return undefined;
  for (const file of layout.limits) {
    const limit = await readNumber(`${dir}/${file}`);
    if (limit === null || limit >= UNLIMITED) continue;
    return { current: workingSet(current, (await readText(`${dir}/memory.stat`)) ?? '', layout.inactiveFile), limit };
  }
  return null;
}

/**
 * Usage less the inactive page cache (memory.stat's `key`): a store that reads a big file would otherwise hold
 * the cgroup near its limit with cache and shed for as long as the cache stays.
 */
export function workingSet(current: number, statText: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(statText);
  return Math.max(0, current - (m ? Number(m[1]) : 0));
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function readNumber(file: string): Promise<number | null> {
  const text = (await readText(file))?.trim() ?? '';
  return /^\d+$/.test(text) ? Number(text) : null;
}
