// message.send as a producer (reference §3.3): a turn's delivery into root, a new conversation or a named one
// arrives there as an `agent_message` event that remembers its sender (whose run's end may wake it).
import { createHash } from 'node:crypto';
import { notedTask } from '../a2a/tasks.js';
import { QuotaExceeded } from '../budget/quotas.js';
import { actsForAll, deliveryRefusal } from '../domain/principal.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { newUlid } from '../store/ulid.js';
import type { DeliveryReceipt, DeliveryRequest } from '../tools/toolOutcome.js';

export class AgentMessages implements Producer {
  readonly name = 'agent_messages';
  private unplug: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    this.unplug = ctx.ports.plug('deliver', (req) => deliver(ctx, req));
  }

  stop(): void {
    this.unplug?.();
    this.unplug = null;
  }
}

/**
 * Accepts the delivery; resolves once it is durable (the tool's result says where it went). Ownership is judged
 * here, right before the accept: the owner of an existing conversation never changes, so a delivery accepted is
 * never refused at its launch (reference §3.3), and a refused one is the sender's tool error, nothing else's.
 */
async function deliver(ctx: ProducerContext, req: DeliveryRequest): Promise<DeliveryReceipt> {
  const conversation = req.to === 'new' ? `conv-${newUlid(ctx.clock()).toLowerCase()}` : req.to;
  await ctx.restored;
  const { steering } = ctx.supervisor;
  const principal = req.caller.principal;
  const owner = steering.knownOwner(conversation);
  const refusal = deliveryRefusal(req.to, owner, principal);
  if (refusal !== null) {
    ctx.log.warn('message.refused', { from: req.caller.conversation, to: conversation, principal, reason: refusal });
    return { ok: false, error: `conversation "${req.to}" is not available` };
  }
  // Bound now, synchronously with the check: a message of another principal queued for the same name is the one
  // refused at its launch, never this accepted delivery.
  if (owner === undefined && req.to !== 'root' && principal !== null) {
    try {
      steering.claim(conversation, principal);
    } catch (err) {
      if (!(err instanceof QuotaExceeded)) throw err;
      return { ok: false, error: err.message };
    }
  }
  // A keyed delivery replayed (a `message` step or `tool` step re-run after a crash) finds where the first went:
  // a turn's inbox event or the record of the waits that took it. Checked before any wait is offered it again.
  if (req.dedupe !== undefined && (await deliveredBefore(ctx, principal, req.dedupe)))
    return { ok: true, conversation, depth: req.depth };
  // A workflow step waiting on this conversation takes the message before any turn does (turn reference §3.2).
  const held = await takenByWaits(ctx, req, conversation);
  if (held > 0) {
    if (req.dedupe !== undefined) await noteTaken(ctx, req.dedupe, conversation, held, principal);
    return { ok: true, conversation, depth: req.depth };
  }
  const { record } = await ctx.accept({
    kind: 'agent_message',
    context_id: conversation,
    text: req.text,
    principal: req.caller.principal,
    msg_depth: req.depth,
    from: req.caller.conversation,
    ...(req.dedupe === undefined ? {} : { dedupe_key: req.dedupe }),
  });
  const from = req.caller.conversation;
  ctx.log.info('message.delivered', { from, to: conversation, depth: req.depth, inbox_event: record.id });
  return { ok: true, conversation, depth: req.depth };
}

/** The record of a keyed delivery that waiting steps took (the A2A path keeps one per message id the same way). */
function takenTaskId(principal: string | null, key: string): string {
  const digest = createHash('sha256')
    .update(`message.send\n${principal ?? ''}\n${key}`)
    .digest('hex');
  return `msg-${digest.slice(0, 32)}`;
}

async function deliveredBefore(ctx: ProducerContext, principal: string | null, key: string): Promise<boolean> {
  if ((await ctx.store.inbox.findByKey(principal, key)) !== null) return true;
  return (await ctx.store.tasks.get(takenTaskId(principal, key))) !== null;
}

/** Notes durably that `held` waiting steps took the keyed delivery: its replay finds this and is not offered again. */
async function noteTaken(
  ctx: ProducerContext,
  key: string,
  conversation: string,
  held: number,
  principal: string | null,
): Promise<void> {
  const reply = `delivered to ${held} waiting workflow step${held === 1 ? '' : 's'}`;
  const id = takenTaskId(principal, key);
  const init = { id, context_id: conversation, conversation, principal: principal ?? 'operator', now: ctx.clock() };
  await ctx.store.tasks.save(notedTask(init, reply));
}

/**
 * Hands the delivery to the workflow steps waiting on `conversation` (`wait on: message`, `a2a.wait`), as a new A2A
 * message is (producers reference §3.7): keyed by the step's dedupe key when it has one, so a replayed `message`
 * step or `tool` step is held once. Resolves with how many took it (0: it goes on to a turn).
 */
async function takenByWaits(ctx: ProducerContext, req: DeliveryRequest, conversation: string): Promise<number> {
  const starts = ctx.a2aStarts;
  if (!starts?.takesMessages) return 0;
  const principal = req.caller.principal;
  const key = req.dedupe ?? `message.send:${newUlid(ctx.clock())}`;
  const held = await starts.takeMessage({
    principal: principal ?? '',
    role: actsForAll(principal) ? 'operator' : 'user',
    contextId: conversation,
    conversation,
    key,
    payload: {
      conversation,
      message: { parts: [{ text: req.text }], text: req.text, message_id: key },
      principal,
      from: req.caller.conversation,
      depth: req.depth,
    },
  });
  if (held > 0)
    ctx.log.info('message.wait.taken', { principal, conversation, steps: held, from: req.caller.conversation });
  return held;
}

/** Registered in runtime/producerList.ts: always on (message.send is granted like any internal tool). */
export function agentMessages(): AgentMessages {
  return new AgentMessages();
}
