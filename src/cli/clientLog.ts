// `agentd log`: follows the daemon's client feed (issue 18 item 1), one line per event, until interrupted. It
// reconnects across a daemon restart from its last seq, so no event is printed twice or skipped.
import type { DaemonClient, FeedMessage } from '../client/daemonClient.js';
import { DaemonError } from '../errors.js';
import { EXIT } from './exitCodes.js';
import type { CliResult } from './run.js';

/** One readable line: `seq kind summary`. */
export function describeFeedEvent(e: FeedMessage): string {
  const d = e.data;
  const pick = (...keys: string[]) => keys.map((k) => d[k]).filter((v) => v !== undefined && v !== null);
  const summary: Record<string, unknown[]> = {
    message: pick('role', 'context_id', 'text'),
    task: pick('task', 'state', 'message'),
    activity: pick('task', 'phase', 'tool', 'round'),
    tool: pick('task', 'name', 'status', 'args'),
    plan: pick('task', 'op', 'progress'),
    question: [d['task'], (d['question'] as { text?: string } | undefined)?.text],
    answer: pick('task', 'text'),
    state: pick('op', 'paused', 'draining'),
  };
  const parts = (summary[e.kind] ?? [JSON.stringify(d)]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return `${e.seq} ${e.kind} ${parts.join(' ')}`.trimEnd();
}

export async function runLog(client: DaemonClient, o: { since?: unknown; json?: boolean }): Promise<CliResult> {
  let since: number | 'latest' = 'latest';
  if (o.since !== undefined) {
    if (!/^\d+$/.test(String(o.since))) throw new DaemonError('usage_invalid', '--since: expected a seq');
    since = Number(o.since);
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await client.feed(
      {
        onEvent: (e) => process.stdout.write(`${o.json ? JSON.stringify(e) : describeFeedEvent(e)}\n`),
        onReload: () => process.stderr.write('agentd log: events were dropped by retention; resuming\n'),
        onConnection: (up, why) => process.stderr.write(up ? 'agentd log: connected\n' : `agentd log: lost: ${why}\n`),
      },
      { since, signal: stop.signal },
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return { code: EXIT.ok };
}
