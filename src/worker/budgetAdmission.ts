// Per-call budget admission in the worker (reference §10.3): before every model call, ask the supervisor.
// `classifyGrant` is the pure policy; `admitViaSupervisor` is the thin loop that waits and asks again.
import { estimateMessage, estimateText, estimateValue } from '../context/estimate.js';
import type { ModelRequest } from '../intel/modelRequest.js';
import { outputCap } from '../intel/requestRules.js';
import type { Logger } from '../obs/log.js';
import type { IntelligenceSpec } from '../protocol/frames.js';
import { DEFAULT_TOKENS_PER_CALL } from './nextStep.js';
import type { Admission } from './roundLoop.js';
import { raceSignal } from './toolRunner.js';

/** A `budget_grant` as the supervisor sends it. */
export interface Grant {
  ok: boolean;
  wait_ms: number;
  model?: string;
  reason?: string;
  refused?: boolean;
}

/** The spec fields the estimate reads: a reasoning effort raises the output cap by its thinking room. */
export type CapSpec = Pick<IntelligenceSpec, 'reasoning'>;

/**
 * The estimate for one model call: messages + tool definitions + the output cap actually sent — the request's
 * cap (raised by a truncated-arguments re-send) plus a reasoning model's thinking room (reference §5.3, §10.3).
 */
export function estimateRequest(req: ModelRequest, spec: CapSpec = {}): number {
  let total = req.system.trim() === '' ? 0 : estimateText(req.system) + 4;
  for (const msg of req.messages) total += estimateMessage(msg);
  for (const tool of req.tools) total += estimateText(tool.name) + estimateValue(tool.input_schema);
  return total + outputCap(spec, req.maxTokens > 0 ? req.maxTokens : DEFAULT_TOKENS_PER_CALL);
}

/**
 * What a grant means: go (perhaps on another model), stop, or wait and ask again. A refusal is `refused` when the
 * supervisor says so; any other no is `exhausted_tokens` (reference §21.5). A grant without the flag comes from a
 * supervisor older than the worker in a rolling upgrade: its reason text decides, as it did then.
 */
export function classifyGrant(grant: Grant): Admission | { kind: 'wait'; ms: number } {
  if (grant.ok) return grant.model ? { kind: 'go', model: grant.model } : { kind: 'go' };
  if (grant.reason !== undefined) {
    const refused = grant.refused ?? grant.reason.includes('refus');
    const status = refused ? 'refused' : 'exhausted_tokens';
    return { kind: 'stop', status, error: `budget: ${grant.reason}` };
  }
  return { kind: 'wait', ms: Math.max(grant.wait_ms, 50) };
}

export interface AdmissionIo {
  ask(estimate: number): Promise<Grant | null>;
  /** The turn's model spec, for the thinking room the output cap is raised by; absent ⇒ no room. */
  spec?: CapSpec;
  remainingMs(): number;
  signal: AbortSignal;
  log: Logger;
  turnId: string;
}

/** Asks until the supervisor says go or stop; no answer means cancelled, a wait past the deadline `deadline`. */
export async function admitViaSupervisor(req: ModelRequest, io: AdmissionIo): Promise<Admission> {
  const estimate = estimateRequest(req, io.spec);
  for (;;) {
    if (io.signal.aborted) return { kind: 'stop', status: 'cancelled' };
    const grant = await raceSignal(io.ask(estimate), io.signal);
    if (grant === null) return { kind: 'stop', status: 'cancelled' };
    const decision = classifyGrant(grant);
    if (decision.kind !== 'wait') return decision;
    const ms = Math.min(decision.ms, io.remainingMs());
    if (ms <= 0) return { kind: 'stop', status: 'deadline', error: 'the budget wait reached the deadline' };
    io.log.info('turn.budget_wait', { turn: io.turnId, wait_ms: ms });
    await sleep(ms, io.signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
