// What "cancel really cancels" is judged by (issue 18 item 5): the worker running a turn and the MCP server process
// it started, and where a task's CANCELED is first seen (the feed, GetTask polling, an interface's answer or screen),
// with whether both processes were already gone at that moment.
import { type DaemonClient, stateName } from '../../../src/client/daemonClient.js';
import { waitUntil } from '../../integration/wait.js';
import type { Daemon } from '../daemon.js';
import { alive, childrenOf } from '../processes.js';

export interface TurnProcesses {
  worker: number;
  mcp: number;
}

/** Which of the two still ran at a moment. */
export interface Moment {
  where: string;
  workerAlive: boolean;
  mcpAlive: boolean;
}

const spawns = (daemon: Daemon) => daemon.events.filter((e) => e.event === 'turn.spawn');

/** How many turns the daemon spawned so far: pass it to `turnInCall` before sending the message. */
export const spawnCount = (daemon: Daemon): number => spawns(daemon).length;

/** The worker of the turn spawned after `before`, once it is inside a call of `tool`, and its MCP server `server`. */
export async function turnInCall(daemon: Daemon, before: number, tool: string, server: string) {
  await waitUntil(() => spawns(daemon).length > before, 30_000, 'the turn spawns');
  const worker = Number(spawns(daemon).at(-1)?.['worker_pid']);
  const calling = () => daemon.events.some((e) => e.event === 'tool.call' && e.tool === tool && e.pid === worker);
  await waitUntil(calling, 30_000, `the worker calls ${tool}`);
  const mcp = childrenOf(worker).find((p) => p.cmd.includes(server))?.pid ?? -1;
  return { worker, mcp } satisfies TurnProcesses;
}

/** Whether both were still running now, named `where`. */
export const moment = (where: string, procs: TurnProcesses): Moment => ({
  where,
  workerAlive: alive(procs.worker),
  mcpAlive: alive(procs.mcp),
});

/**
 * Watches task `id` through the feed and GetTask polling; each records the moment it first sees CANCELED. Connects
 * before it resolves, so a cancel asked after it is seen by the feed.
 */
export async function watchCanceled(client: DaemonClient, id: string, procs: TurnProcesses) {
  const seen: Moment[] = [];
  const stop = new AbortController();
  let up = false;
  const first = (where: string) => {
    if (!seen.some((m) => m.where === where)) seen.push(moment(where, procs));
  };
  const following = client.feed(
    {
      onEvent: (e) => {
        if (e.kind === 'task' && e.data['task'] === id && e.data['state'] === 'canceled') first('feed');
      },
      onConnection: (on) => {
        up ||= on;
      },
    },
    { since: 'latest', signal: stop.signal },
  );
  const polling = (async () => {
    while (!stop.signal.aborted) {
      if (stateName(await client.getTask(id)) === 'canceled') first('GetTask');
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await waitUntil(() => up, 10_000, 'the feed connects');
  return {
    seen,
    /** Waits until both saw CANCELED, then stops watching. */
    async done(): Promise<Moment[]> {
      await waitUntil(() => seen.length === 2, 20_000, 'the feed and GetTask show CANCELED');
      stop.abort();
      await Promise.all([following, polling]);
      return seen;
    },
  };
}
