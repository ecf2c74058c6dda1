// Before a producer steers a conversation or sends to it: the conversation is loaded when it was evicted (steering
// works on resident conversations only), and a principal's message is held to its storage quotas.
import { principalId } from '../a2a/principals.js';
import { QuotaExceeded, quotaRefusal } from '../a2a/quotas.js';
import type { Config } from '../config/types.js';
import type { ConversationBook } from '../context/conversationBook.js';
import type { InboxEvent } from '../domain/inbox.js';
import type { Logger } from '../obs/log.js';
import type { TaskHooks } from './supervisorOptions.js';

export interface ConversationIntakeDeps {
  config: Readonly<Config>;
  conversations: ConversationBook;
  log: Logger;
}

export class ConversationIntake {
  constructor(private readonly deps: ConversationIntakeDeps) {}

  /**
   * Before claimed events queue (at start, and events a lease hands over later): their conversations come into
   * memory (at start, nothing else but active goals is loaded), and the tasks a crash lost are rebuilt.
   */
  async beforeReplay(events: readonly InboxEvent[], tasks: Pick<TaskHooks, 'recover'> | undefined): Promise<void> {
    await this.deps.conversations.fetchAll(events.map((e) => e.payload.context_id));
    await tasks?.recover?.(events);
  }

  /** Loads `ctx` when it exists and is not in memory; resolves once steering it works. */
  async load(ctx: string): Promise<void> {
    await this.deps.conversations.fetch(ctx);
  }

  /**
   * Loads `ctx`, then checks a message of `text` from `principal` to it against the principal's quotas: throws a
   * QuotaExceeded (before anything is stored) when it would pass one.
   */
  async admit(principal: string, ctx: string, text: string): Promise<void> {
    const { config, conversations, log } = this.deps;
    await conversations.fetch(ctx);
    const quotas = config.a2a.principals.find((p) => principalId(p) === principal)?.quotas;
    if (quotas === undefined) return;
    const held = conversations.heads.usage(principal);
    const refusal = quotaRefusal(principal, quotas, {
      conversations: held.conversations,
      storedBytes: held.bytes,
      messageBytes: Buffer.byteLength(text),
      newConversation: !conversations.heads.has(ctx),
    });
    if (refusal === null) return;
    log.warn('a2a.quota.refused', { ...refusal, ctx });
    throw new QuotaExceeded(refusal);
  }
}

/** The conversations something holds now (a job of the table, an accept on its way, a think child): never evicted. */
export function heldContexts(
  jobs: Iterable<{ ctx: string }>,
  accepting: Iterable<string>,
  thinking: Iterable<string>,
): Set<string> {
  const held = new Set([...accepting, ...thinking]);
  for (const job of jobs) held.add(job.ctx);
  return held;
}
