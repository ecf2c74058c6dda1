// Tool journal retention (issue 19; interfaces reference §4.4): the journal answers a rerun of a message's turn, so
// once that message is no longer pending its entries serve nobody; those older than `store.journal_retain` go.
// Every store kind; on replicas each one prunes (the delete is idempotent), and a pending message's entries stay.
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from './producer.js';

/** How often the journal is pruned at most (and once at start). */
export const JOURNAL_PRUNE_EVERY_MS = 3_600_000;

export class JournalRetention implements Producer {
  readonly name = 'journal_retention';
  private timer: NodeJS.Timeout | undefined;

  start(ctx: ProducerContext): void {
    const prune = (): void => {
      const before = ctx.clock() - ctx.config.store.journal_retain;
      ctx.store.journal
        .prune(before)
        .then((entries) => entries > 0 && ctx.log.info('store.journal_pruned', { entries }))
        .catch((err: unknown) => ctx.log.warn('tool.journal_fail', { key: null, err: describeError(err) }));
    };
    ctx.restored.then(prune, () => {});
    this.timer = setInterval(prune, Math.min(JOURNAL_PRUNE_EVERY_MS, ctx.config.store.journal_retain));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Registered in runtime/producerList.ts: always on (`store.journal_retain` sets the age). */
export function journalRetention(): JournalRetention {
  return new JournalRetention();
}
