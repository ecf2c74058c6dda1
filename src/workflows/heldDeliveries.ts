// Message and webhook deliveries held for a run's waiting steps (producers reference §2.8 `wait on: message |
// webhook`, §3.7). They live apart from the run's signal buffer: a burst of signals never pushes out a delivery
// whose sender was told it arrived, and deliveries never push out signals. Each waiting step's channel holds one
// delivery (its wait takes one); a second is refused, not queued, so its sender learns it was not taken. Pure.
import type { BufferedSignal, WorkflowRun } from '../domain/workflow.js';
import { takeSignal } from '../triggers/signalBuffer.js';

const DELIVERED: ReadonlySet<string> = new Set(['message', 'webhook']);

export type HoldOutcome =
  | { type: 'duplicate' }
  /** The channel's one delivery is held already, or no step waits on it now. */
  | { type: 'refused'; reason: 'taken' | 'not_waiting' }
  | { type: 'held'; held: BufferedSignal[] };

/** The channels of `run`'s steps suspended on a message or webhook now. */
export function waitedChannels(run: Readonly<WorkflowRun>): Set<string> {
  const out = new Set<string>();
  for (const state of Object.values(run.steps))
    if (state.status === 'suspended' && state.wait && DELIVERED.has(state.wait.kind) && state.wait.signal)
      out.add(state.wait.signal);
  return out;
}

/**
 * Holds `delivery` (its `name` is the wait's channel) on `run`: a key held already is a duplicate (a retry); what
 * was held for waits that ended since is let go.
 */
export function holdDelivery(run: Readonly<WorkflowRun>, delivery: BufferedSignal): HoldOutcome {
  const held = run.held ?? [];
  if (held.some((d) => d.key === delivery.key)) return { type: 'duplicate' };
  const waited = waitedChannels(run);
  if (!waited.has(delivery.name)) return { type: 'refused', reason: 'not_waiting' };
  const kept = held.filter((d) => waited.has(d.name));
  if (kept.some((d) => d.name === delivery.name)) return { type: 'refused', reason: 'taken' };
  return { type: 'held', held: [...kept, delivery] };
}

/** Takes the delivery held on `channel` from `run` (mutated; the caller saves it), or null. */
export function takeHeld(run: WorkflowRun, channel: string): BufferedSignal | null {
  const taken = takeSignal(run.held ?? [], channel);
  if (taken.signal !== null) {
    run.held = taken.buffer;
    return taken.signal;
  }
  // A record from before `held` was kept holds its deliveries among the signals.
  const legacy = takeSignal(run.signals ?? [], channel);
  if (legacy.signal !== null) run.signals = legacy.buffer;
  return legacy.signal;
}

/** True when `run` holds a delivery on `channel`. */
export function isHeld(run: Readonly<WorkflowRun>, channel: string): boolean {
  return [...(run.held ?? []), ...(run.signals ?? [])].some((d) => d.name === channel);
}
