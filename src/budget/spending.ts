// What turns and think children spend (reference §15): the budget ledger and its waits, and the token metrics.
// One place decides which path a spend takes: settled against a reservation, or charged without one.
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Usage } from '../protocol/messages.js';
import { addUsage, chargedTokens, usageSince } from '../protocol/usage.js';
import type { Store } from '../store/store.js';
import type { LiveTurn } from '../supervisor/turnWorkers.js';
import { BudgetLedger, type CallGrant } from './ledger.js';
import { BudgetWaits } from './waits.js';

export interface SpendingDeps {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
  metrics: Metrics;
  /** Wakes the reactor (a budget wait ended). */
  wake(): void;
  /** Room was freed (a reservation settled): every waiting turn asks again. */
  onRoom(): void;
  /** The principal owning a conversation (whose quota a think child's spend counts against). */
  ownerOf(ctx: string): string | null;
}

export class Spending {
  readonly budget: BudgetLedger;
  readonly waits: BudgetWaits;

  constructor(private readonly deps: SpendingDeps) {
    this.budget = new BudgetLedger(deps);
    const onWait = () => deps.metrics.budgetWaits.inc();
    this.waits = new BudgetWaits({ log: deps.log, now: deps.now, wake: deps.wake, onWait, onRoom: deps.onRoom });
  }

  /** A live turn's per-call admission (reference §10.3). */
  grant(turn: LiveTurn, estimate: number): CallGrant {
    return this.budget.admitCall(turn.job.ctx, turn.job.principal, estimate, turn.reservation);
  }

  /**
   * A usage frame's increment reaches the windows at once, durably: a supervisor that dies mid-turn has still
   * counted what the turn spent so far.
   */
  turnUsage(turn: LiveTurn, spent: Usage): void {
    this.count(spent, 'turn');
    if (turn.reservation) this.budget.draw(turn.reservation, spent);
    else this.budget.charge(turn.job.ctx, turn.job.principal, spent);
    this.budget.flush();
    turn.charged = addUsage(turn.charged, spent);
  }

  /**
   * The turn's dispatch reservation settles once, with what its frames had not already charged; waiting turns
   * may now fit. Called again (the worker is gone), it charges nothing twice.
   */
  settleTurn(turn: LiveTurn, usage: Usage): void {
    const rest = usageSince(usage, turn.charged);
    turn.charged = addUsage(turn.charged, rest);
    if (turn.reservation) {
      this.budget.settle(turn.reservation, rest);
      turn.reservation = null;
      this.waits.clear();
    } else if (chargedTokens(rest) > 0) {
      this.budget.charge(turn.job.ctx, turn.job.principal, rest);
    }
  }

  /** A think child's spend, charged to the scopes of the conversation it ran for. */
  thinkSpent(ctx: string, usage: Usage, kind: string): void {
    this.count(usage, kind);
    this.budget.charge(ctx, this.deps.ownerOf(ctx), usage);
  }

  /** A subagent's spend, charged to the principal its calls were admitted for (not the conversation's owner). */
  subagentSpent(ctx: string, principal: string | null, usage: Usage): void {
    this.count(usage, 'subagent');
    this.budget.charge(ctx, principal, usage);
  }

  private count(usage: Usage, kind: string): void {
    this.deps.metrics.tokens.inc({ direction: 'in', kind }, usage.input_tokens);
    this.deps.metrics.tokens.inc({ direction: 'out', kind }, usage.output_tokens);
    // Cache tokens are counted apart here; writes are charged to budgets as input (docs/guide/budgets.md, Prompt-cache tokens).
    if (usage.cache_read_tokens)
      this.deps.metrics.tokens.inc({ direction: 'cache_read', kind }, usage.cache_read_tokens);
    if (usage.cache_write_tokens) {
      this.deps.metrics.tokens.inc({ direction: 'cache_write', kind }, usage.cache_write_tokens);
    }
  }
}
