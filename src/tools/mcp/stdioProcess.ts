// The stop ladder of a stdio MCP server process: its stdin is closing; wait for it to exit, then SIGTERM, then
// SIGKILL. Settles once the process is gone (or the ladder is done), so close() never leaves a child behind.

const TERM_GRACE_MS = 1_000;
const EXIT_POLL_MS = 20;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves true once `pid` is gone, false after `ms`. */
async function exited(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() >= until) return false;
    // A referenced timer: close() must hold the process open until the child is gone.
    await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
  }
  return true;
}

/** Sends `sig` to `pid`; a process already gone is fine. */
export function signalProcess(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** The stop ladder of a stdio server whose stdin is closing: wait `graceMs`, SIGTERM, wait 1 s, SIGKILL. */
export async function stopProcess(pid: number, graceMs: number): Promise<void> {
  if (await exited(pid, graceMs)) return;
  signalProcess(pid, 'SIGTERM');
  if (await exited(pid, TERM_GRACE_MS)) return;
  signalProcess(pid, 'SIGKILL');
  await exited(pid, TERM_GRACE_MS);
}
