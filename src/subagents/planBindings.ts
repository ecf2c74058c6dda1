// Plan items bound to a subagent are settled when it ends (reference §1.9 step 4; turn reference §2.3): in the
// conversation that started it (loaded if evicted) and in every resident one that binds it, through the
// conversation book, written at once. The decision is planOps.ts's settleBound.
import type { ConversationBook } from '../context/conversationBook.js';
import { settleBound } from '../context/planOps.js';
import { planProgress } from '../context/render.js';
import type { Conversation } from '../domain/conversation.js';
import type { SubagentRecord } from '../domain/subagent.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';

export interface PlanBindingDeps {
  conversations: ConversationBook;
  log: Logger;
  now(): number;
}

/** Why the item settled: the subagent's status, and its error when it did not complete. */
export function settleNote(record: Readonly<SubagentRecord>): string {
  return `subagent ${record.handle} ${record.status}${record.error ? `: ${record.error}` : ''}`;
}

function settleIn(deps: PlanBindingDeps, conv: Conversation, record: SubagentRecord): void {
  if (conv.plan === null) return;
  const ok = record.status === 'completed';
  const plan = settleBound(conv.plan, record.handle, ok, settleNote(record), deps.now());
  if (plan === null) return;
  deps.conversations.setPlan(conv, plan);
  deps.log.info('plan.updated', { ctx: conv.id, op: 'auto', progress: planProgress(plan), subagent: record.handle });
  void deps.conversations.saveNow(conv);
}

/** Settles the items bound to the ended subagent `record`. */
export async function settlePlanItems(deps: PlanBindingDeps, record: SubagentRecord): Promise<void> {
  try {
    await deps.conversations.fetch(record.requested_by.ctx);
  } catch (err) {
    deps.log.warn('store.checkpoint.fail', { ctx: record.requested_by.ctx, err: describeError(err), plan: true });
  }
  for (const conv of deps.conversations.list()) settleIn(deps, conv, record);
}
