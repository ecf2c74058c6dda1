// context.compact: reports the caller's conversation size; nothing is folded until compaction exists.
// Never parks; the answer keeps the contract's shape so a later compaction only fills `folded` in.
import { estimateConversation } from '../../context/estimate.js';
import { type InternalToolHost, type ToolCaller, type ToolOutcome, toolOk } from '../toolOutcome.js';
import type { Args } from './handler.js';

/** `{version, est_tokens, folded: 0, note: "nothing to compact"}` for the caller's conversation. */
export function contextCompact(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const conv = host.conversation(caller.conversation);
  return toolOk({
    version: conv.version,
    est_tokens: estimateConversation(conv),
    folded: 0,
    note: 'nothing to compact',
  });
}
