// What reaches a live run from outside its steps (producers reference §2.6, §2.8, §3.7): signals (bounded, the
// oldest dropped), message and webhook deliveries for its waiting steps (heldDeliveries.ts, never dropped), and the
// tokens its step turns and subagents spend against `limits.tokens`. Each is saved with the run before it is
// acknowledged; the engine's next pass acts on it.
import type { BufferedSignal, WorkflowRun } from '../domain/workflow.js';
import type { Logger } from '../obs/log.js';
import { bufferSignal, takeSignal } from '../triggers/signalBuffer.js';
import { holdDelivery } from './heldDeliveries.js';

export interface MailboxDeps {
  live(id: string): WorkflowRun | undefined;
  save(run: WorkflowRun): Promise<void>;
  /** Schedules a pass over the run. */
  drive(id: string): void;
  /** Fails the live run with `error` (in-flight steps aborted). */
  fail(run: WorkflowRun, error: string): Promise<void>;
  log: Logger;
}

export class RunMailbox {
  constructor(private readonly deps: MailboxDeps) {}

  /**
   * Holds a signal on live run `id` until a waiter takes it (bounded; the oldest is dropped past the bound), saved
   * with the run: `held`; `duplicate` when its key is held already (a retry); null when the run is not live.
   */
  async signal(id: string, signal: BufferedSignal): Promise<'held' | 'duplicate' | null> {
    const run = this.deps.live(id);
    if (!run) return null;
    const outcome = bufferSignal(run.signals ?? [], signal);
    if (outcome.type === 'duplicate') return 'duplicate';
    run.signals = outcome.buffer;
    await this.deps.save(run);
    this.deps.log.info('signal.buffered', { run: id, signal: signal.name, held: outcome.buffer.length });
    if (outcome.dropped) this.deps.log.warn('signal.dropped', { run: id, signal: outcome.dropped.name });
    // A `wait on: signal` step of this run takes it on the next pass.
    this.deps.drive(id);
    return 'held';
  }

  /** Takes the oldest held signal named `name` from live run `id`, saved (null: none, or the run is not live). */
  async takeSignal(id: string, name: string): Promise<BufferedSignal | null> {
    const run = this.deps.live(id);
    if (!run) return null;
    const taken = takeSignal(run.signals ?? [], name);
    if (taken.signal === null) return null;
    run.signals = taken.buffer;
    await this.deps.save(run);
    return taken.signal;
  }

  /**
   * Holds a message or webhook delivery for the step waiting on channel `delivery.name` of live run `id`, saved
   * with the run: `held`; `duplicate` for a key held already; null when the run is not live, no step waits on the
   * channel now, or the step holds one delivery already (this one is not taken: its sender goes on elsewhere).
   */
  async deliver(id: string, delivery: BufferedSignal): Promise<'held' | 'duplicate' | null> {
    const run = this.deps.live(id);
    if (!run) return null;
    const outcome = holdDelivery(run, delivery);
    if (outcome.type === 'duplicate') return 'duplicate';
    if (outcome.type === 'refused') {
      this.deps.log.info('wait.delivery.refused', { run: id, channel: delivery.name, reason: outcome.reason });
      return null;
    }
    run.held = outcome.held;
    await this.deps.save(run);
    this.deps.drive(id);
    return 'held';
  }

  /**
   * Adds spend of a step of run `id` (a step turn's or a subagent's usage as it arrives) durably; past the run's
   * `limits.tokens` the run fails at once, in-flight steps aborted (reference §2.6). False when it is not live.
   */
  async charge(id: string, tokens: number): Promise<boolean> {
    const run = this.deps.live(id);
    if (!run || !(tokens > 0)) return false;
    run.tokens = (run.tokens ?? 0) + tokens;
    const cap = run.definition.limits.tokens;
    if (cap !== null && run.tokens >= cap) await this.deps.fail(run, `exhausted tokens: limits.tokens = ${cap}`);
    else await this.deps.save(run);
    return true;
  }
}
