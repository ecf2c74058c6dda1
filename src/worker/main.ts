// The worker process's entry (reference §1.5): the frame pipe and pings only, so a spare waiting for its first turn
// holds none of a turn's modules (issue 14: idle memory). The turn half (turnWorker.ts) is imported at the first
// frame that is not a ping, the frames read meanwhile are handed to it in order, and a reused worker keeps it for
// its later turns. `AGENTD_WORKER_PRELOAD` (supervisor/poolPolicy.ts sparePreloads) names what a spare imports
// while it waits instead: `turn` (when every turn gets a fresh worker), `mcp`, `tls`.
import { describeError } from '../errors.js';
import { createLogger } from '../obs/log.js';
import { EXIT } from '../protocol/exitTable.js';
import { checkDownFrame } from '../protocol/frameCheck.js';
import { ControlChannel } from './controlChannel.js';
import type { TurnWorker } from './turnWorker.js';

function main(): void {
  const log = createLogger({ base: { pid: process.pid, comp: 'worker' } });
  let turns: TurnWorker | undefined;
  let loading: Promise<void> | undefined;
  const waiting: unknown[] = [];
  const crash = (err: unknown): never => {
    if (turns) turns.crashed(err);
    else log.error('loop.error', { err: `worker crashed: ${describeError(err)}` });
    process.exit(EXIT.generic);
  };
  // A crash must not print a raw stack (which could hold a secret) into the supervisor's event stream.
  process.on('uncaughtException', crash);
  const channel = new ControlChannel(process.stdin, process.stdout, {
    onFrame: (frame) => {
      if (turns) return turns.onFrame(frame);
      const down = checkDownFrame(frame);
      if (typeof down !== 'string' && down.type === 'ping') {
        void channel.send({ type: 'pong', seq: down.seq });
        return;
      }
      waiting.push(frame);
      void load().catch(crash);
    },
    onEnd: (reason, kind) => {
      if (turns) return turns.onEnd(reason, kind);
      // The supervisor is gone (or garbled the pipe) before a turn began: never outlive it as an orphan.
      log.error('loop.error', { err: `supervisor channel closed: ${reason}` });
      process.exit(kind === 'garbage' && waiting.length === 0 ? EXIT.config : EXIT.generic);
    },
  });
  const load = (): Promise<void> => {
    loading ??= import('./turnWorker.js').then((m) => {
      turns = m.turnWorker(channel);
      for (const frame of waiting.splice(0)) turns.onFrame(frame);
    });
    return loading;
  };
  const preload = (process.env.AGENTD_WORKER_PRELOAD ?? '').split(',');
  if (preload.includes('turn')) void load().catch(crash);
  if (preload.includes('mcp')) void import('../tools/mcp/mcpConnection.js').catch(() => {});
  if (preload.includes('tls')) void import('node:https').catch(() => {});
  channel.start();
}

main();
