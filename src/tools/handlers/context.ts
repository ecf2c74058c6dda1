// context.compact (reference §16): compacts the caller's conversation now and reports its size. Defers to the
// supervisor's compactor; a host without one reports the size and "nothing to compact".
import { estimateConversation } from '../../context/estimate.js';
import { type InternalToolHost, type ToolCaller, type ToolOutcome, toolDefer, toolOk } from '../toolOutcome.js';
import type { Args } from './handler.js';

/** `{version, est_tokens, folded, note?}` for the caller's conversation, once compaction (if any) ran. */
export function contextCompact(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  if (host.compact !== undefined) {
    const options: { targetTokens?: number; keepLast?: number } = {};
    if (typeof args['target_tokens'] === 'number') options.targetTokens = args['target_tokens'];
    if (typeof args['keep_last'] === 'number') options.keepLast = args['keep_last'];
    return toolDefer(host.compact({ caller, options }));
  }
  const conv = host.conversation(caller.conversation);
  return toolOk({
    version: conv.version,
    est_tokens: estimateConversation(conv),
    folded: 0,
    note: 'nothing to compact',
  });
}
