// The subagent records and their persistence: the map by handle, each save, a charge's one-transaction save up the
// lineage, and the prune. The desk decides what changes; this writes it. Only subagent records, never a process.
import type { Config } from '../config/types.js';
import type { SubagentRecord } from '../domain/subagent.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { Usage } from '../protocol/messages.js';
import { addUsage, chargedTokens } from '../protocol/usage.js';
import type { Store } from '../store/store.js';
import { chargeTree, lineage, refusalOf } from './ceiling.js';
import { planPrune } from './retention.js';

export interface BookDeps {
  store: Store;
  log: Logger;
  config: Readonly<Config>;
  now(): number;
}

export class SubagentBook {
  readonly records = new Map<string, SubagentRecord>();

  constructor(private readonly deps: BookDeps) {}

  /** Reads every stored record into the map. */
  async load(): Promise<void> {
    for (const record of await this.deps.store.subagents.list()) this.records.set(record.handle, record);
  }

  /** Why the subagent's next model call is refused: its subtree (or one above it) spent its ceiling; or null. */
  ceiling(record: SubagentRecord): string | null {
    return refusalOf(lineage(this.records, record.handle));
  }

  /**
   * Adds `spent` to the spender's usage and to the subtree spend of it and every caller above it, and saves them
   * all in one write as it is charged: a crash cannot forget spend the ceiling counted (reference §5 item 24).
   */
  charge(record: SubagentRecord, spent: Usage): void {
    record.tokens = addUsage(record.tokens, spent);
    const chain = lineage(this.records, record.handle);
    const tokens = chargedTokens(spent);
    chargeTree(chain, tokens);
    // Replicas: the charge is added in place (callers may run elsewhere) and fenced by the spender's lease.
    const shared = this.deps.store.leases === undefined ? undefined : tokens;
    void this.deps.store.subagents
      .saveAll(
        chain.map((r) => structuredClone(r)),
        shared,
      )
      .catch((err: unknown) => this.storeFailed({ handle: record.handle, op: 'charge' }, err));
  }

  save(record: SubagentRecord): Promise<void> {
    return this.deps.store.subagents
      .save(structuredClone(record))
      .catch((err: unknown) => this.storeFailed({ handle: record.handle }, err));
  }

  /** Drops ended records past `subagents.keep` or older than `subagents.keep_for`, here and in the store. */
  prune(busy: ReadonlySet<string>): void {
    const { keep, keep_for } = this.deps.config.subagents;
    const handles = planPrune(this.records.values(), { keep, keepForMs: keep_for }, busy, this.deps.now());
    if (handles.length === 0) return;
    for (const handle of handles) this.records.delete(handle);
    this.deps.log.info('subagent.pruned', { count: handles.length });
    void this.deps.store.subagents.remove(handles).catch((err: unknown) => this.storeFailed({ op: 'prune' }, err));
  }

  storeFailed(fields: Record<string, unknown>, err: unknown): void {
    this.deps.log.error('store.checkpoint.fail', { ...fields, err: describeError(err) });
  }
}
