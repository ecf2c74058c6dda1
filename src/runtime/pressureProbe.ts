// The pressure readings (reference §4), a thin shell over the OS: free space of the store's filesystem through
// statfs, and the cgroup's memory against its limit (v2 memory.high, else memory.max; v1 limit_in_bytes).
import { readFile, statfs } from 'node:fs/promises';
import type { PressureReading } from '../supervisor/pressure.js';

/** Takes one reading; injectable so a test can stand in for the filesystem. */
export type PressureProbe = () => Promise<PressureReading>;

/** Reads the filesystem holding `storePath` (null: a store with no filesystem) and the process's cgroup. */
export function systemProbe(storePath: string | null, cgroupRoot = '/sys/fs/cgroup'): PressureProbe {
  return async () => ({
    diskFreeBytes: storePath === null ? null : await diskFree(storePath),
    memory: await cgroupMemory(cgroupRoot),
  });
}

async function diskFree(path: string): Promise<number> {
  const fs = await statfs(path);
  return fs.bavail * fs.bsize;
}

/** In use and limit, or null without a limit (`max`, v1's "unlimited" page-rounded maximum, or no cgroup files). */
export async function cgroupMemory(root: string): Promise<{ current: number; limit: number } | null> {
  const v2 = await readNumbers(`${root}/memory.current`, [`${root}/memory.high`, `${root}/memory.max`]);
  if (v2 !== null) return v2;
  return readNumbers(`${root}/memory/memory.usage_in_bytes`, [`${root}/memory/memory.limit_in_bytes`]);
}

/** No cgroup limit is this large (v1 reports about 2^63 for "none"). */
const UNLIMITED = 2 ** 60;

async function readNumbers(currentFile: string, limitFiles: string[]) {
  const current = await readNumber(currentFile);
  if (current === null) return null;
  for (const file of limitFiles) {
    const limit = await readNumber(file);
    if (limit !== null && limit < UNLIMITED) return { current, limit };
  }
  return null;
}

async function readNumber(file: string): Promise<number | null> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}
