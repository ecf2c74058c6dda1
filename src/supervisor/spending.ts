// What turns and think children spend (reference §15): the budget ledger and its waits, and the token metrics.
// One place decides which path a spend takes: settled against a reservation, or charged without one.
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Usage } from '../protocol/messages.js';
import type { Store } from '../store/store.js';
import { BudgetLedger, type CallGrant } from './budgetLedger.js';
import { BudgetWaits } from './budgetWaits.js';
import type { LiveTurn } from './liveTurn.js';

export interface SpendingDeps {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  metrics: Metrics;
  /** Wakes the reactor (a budget wait ended). */
  wake(): void;
  /** The principal owning a conversation (whose quota a think child's spend counts against). */
  ownerOf(ctx: string): string | null;
}

export class Spending {
  readonly budget: BudgetLedger;
  readonly waits: BudgetWaits;

  constructor(private readonly deps: SpendingDeps) {
    this.budget = new BudgetLedger(deps);
    const onWait = () => deps.metrics.budgetWaits.inc();
    this.waits = new BudgetWaits({ log: deps.log, now: deps.now, wake: deps.wake, onWait });
  }

  /** A live turn's per-call admission (reference §10.3). */
  grant(turn: LiveTurn, estimate: number): CallGrant {
    return this.budget.admitCall(turn.job.ctx, turn.job.principal, estimate, turn.reservation);
  }

  /** A usage frame's increment (metrics only: the budget settles once, at the end). */
  turnUsage(spent: Usage): void {
    this.count(spent, 'turn');
  }

  /** The turn's dispatch reservation settles once, with what it spent; waiting turns may now fit. */
  settleTurn(turn: LiveTurn, usage: Usage): void {
    if (!turn.reservation) return;
    this.budget.settle(turn.reservation, usage);
    turn.reservation = null;
    this.waits.clear();
  }

  /** A think child's spend, charged to the scopes of the conversation it ran for. */
  thinkSpent(ctx: string, usage: Usage, kind: string): void {
    this.count(usage, kind);
    this.budget.charge(ctx, this.deps.ownerOf(ctx), usage);
  }

  private count(usage: Usage, kind: string): void {
    this.deps.metrics.tokens.inc({ direction: 'in', kind }, usage.input_tokens);
    this.deps.metrics.tokens.inc({ direction: 'out', kind }, usage.output_tokens);
  }
}
