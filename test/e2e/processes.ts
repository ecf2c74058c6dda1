// Processes seen from /proc (Linux), for tests that check what a daemon left running: a zombie counts as gone.
import { readdirSync, readFileSync } from 'node:fs';

/** Live processes whose parent is `pid`, with their command lines. */
export function childrenOf(pid: number): Array<{ pid: number; cmd: string }> {
  const found: Array<{ pid: number; cmd: string }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== pid || fields[0] === 'Z') continue;
      found.push({ pid: Number(name), cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** True while `pid` runs (a zombie, dead but not yet reaped, is not alive). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
