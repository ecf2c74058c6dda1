// The worker's side of the tool journal (issue 19 item 3; interfaces reference §4.4): an MCP call this message's
// turn already completed (in an earlier run, on this replica or a dead one) is answered from the journal, and a
// completed call is recorded for the next run. Keys stay stable across runs (`TurnSpec.journal_scope`), so a call
// the journal never heard of still reaches the server under the same key and the server can deduplicate it.
import { createRequire } from 'node:module';
import type { TurnSpec } from '../protocol/frames.js';
import type { CallMcp, McpCall, ToolAnswer } from './toolRunner.js';

/** The supervisor's journal as the worker reaches it (a round trip and a one-way record). */
export interface JournalChannel {
  lookup(key: string, argsHash: string): Promise<ToolAnswer | null>;
  record(key: string, argsHash: string, answer: ToolAnswer): void;
}

/** node:crypto loads at the first journaled call: a spare worker waits for its turn without it. */
const require = createRequire(import.meta.url);

/** sha256 of the route and arguments: the same key with other arguments is another call. */
export function argsHash(call: Pick<McpCall, 'server' | 'tool' | 'args'>): string {
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  return createHash('sha256')
    .update(`${call.server}\n${call.tool}\n${JSON.stringify(call.args ?? null)}`)
    .digest('hex');
}

/** `callMcp` behind the journal when the turn has a journal scope; `hit` hears each call answered from it. */
export function journaledMcp(
  callMcp: CallMcp,
  turn: Pick<TurnSpec, 'journal_scope'>,
  journal: JournalChannel,
  hit: (key: string, tool: string) => void,
): CallMcp {
  if (!turn.journal_scope) return callMcp;
  return async (call) => {
    const key = call.meta['agent/idempotency_key'];
    if (typeof key !== 'string') return callMcp(call);
    const hash = argsHash(call);
    const known = await journal.lookup(key, hash);
    if (known !== null) {
      hit(key, call.tool);
      return known;
    }
    const answer = await callMcp(call);
    // A tool error or a transport failure is no completed effect: a rerun tries it again.
    if (!answer.is_error) journal.record(key, hash, answer);
    return answer;
  };
}
