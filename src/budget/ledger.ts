// The budget governor wired to the store (reference §10, §15): which scopes a turn answers to, their durable
// counters, dispatch and per-call admission, settling, charging. Arithmetic lives in budget/governor.ts.
import { principalId } from '../a2a/principals.js';
import type { BudgetConfig, Config } from '../config/types.js';
import { ROOT_CONVERSATION } from '../context/conversation.js';
import type { BudgetCounter } from '../domain/budget.js';
import { describeError } from '../errors.js';
import { specForRef } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import type { Usage } from '../protocol/messages.js';
import { chargedTokens } from '../protocol/usage.js';
import { RESERVATION_TTL_MS } from '../store/budgetPort.js';
import type { BudgetHold, Store } from '../store/store.js';
import { newUlid } from '../store/ulid.js';
import {
  type Admission,
  admit,
  charge,
  draw,
  newScope,
  type Reservation,
  release,
  reserve,
  roll,
  type ScopeState,
  settle,
  type WindowCounter,
  windowKey,
  windowStart,
} from './governor.js';
import { adoptShared, capSharedWait, holdRows, LIFETIME, sharedScope } from './sharedWindow.js';

/** How often this process renews its reservations in the shared window: a third of their unrenewed life. */
const RENEW_MS = RESERVATION_TTL_MS / 3;
/** Bounds of the wait a per-call `budget_grant` asks for (reference §10.3). */
const CALL_WAIT_MIN_MS = 100;
const CALL_WAIT_MAX_MS = 60_000;

export interface LedgerDeps {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  now(): number;
}

/** A per-call `budget_grant`'s fields. */
export interface CallGrant {
  ok: boolean;
  wait_ms: number;
  model?: string;
  reason?: string;
  /** The governor refused (status `refused`) rather than found the window exhausted. */
  refused?: boolean;
}

export class BudgetLedger {
  private readonly scopes = new Map<string, ScopeState>();
  private readonly dirty = new Set<string>();
  /**
   * What the store holds by `scope\nwindow` as far as this ledger knows (read at start, then what it wrote):
   * scopes coming into use start from it, and flushes add the difference.
   */
  private flushed = new Map<string, BudgetCounter>();
  /** Shared reservations whose hold changed since the last flush: what each still holds (0 = settled). */
  private readonly holds = new Map<string, number>();
  /** Shared reservations live here (renewed while their turn runs). */
  private readonly live = new Set<string>();
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly deps: LedgerDeps) {}

  /** True when admission reads and reserves in a window the replicas share (postgres). */
  get shared(): boolean {
    return this.deps.store.budget.reserve !== undefined;
  }

  /** True when any budget is configured: turns then ask before every model call. */
  get active(): boolean {
    const { config } = this.deps;
    return (
      config.intelligence.budget !== null ||
      config.agent.conversation_budget !== null ||
      config.a2a.principals.some((p) => p.quotas?.budget !== undefined)
    );
  }

  /**
   * Reads the durable counters (start-up), with or without a budget configured: a budget a reload adds later
   * counts on from what an earlier run stored (interfaces §3.6), and the read is one small table.
   */
  async load(): Promise<void> {
    const rows = await this.deps.store.budget.load();
    this.flushed = new Map(rows.map((c) => [counterKey(c), c]));
  }

  /**
   * The instance budget as it stands (`intelligence.budget`; null without one), for the operator's `status`: each
   * window's use in its current bucket against its caps, and when that bucket ends (interfaces §1.8: shown, where
   * agentd sends it and no client renders it). Per-conversation and per-principal scopes are not listed.
   */
  instanceSummary(): Record<string, unknown> | null {
    const policy = this.deps.config.intelligence.budget;
    if (policy === null) return null;
    const scope = this.scope('instance', policy);
    const now = this.deps.now();
    roll(scope, now);
    const windows = policy.windows.map((w, i) => {
      const c = scope.windows[i] as WindowCounter;
      const resets = new Date(windowStart(w, c.index + 1)).toISOString();
      return {
        per: w.per,
        tokens: c.tokens + c.reserved,
        max_tokens: w.tokens,
        requests: c.requests,
        max_requests: w.requests,
        resets,
      };
    });
    return {
      windows,
      lifetime_tokens: scope.lifetime,
      max_lifetime_tokens: policy.lifetime_tokens,
      on_exhausted: policy.on_exhausted,
    };
  }

  /** The scopes a turn in `ctx` for `principal` answers to, in check order: principal, conversation, instance. */
  scopesFor(ctx: string, principal: string | null): ScopeState[] {
    const { config } = this.deps;
    const scopes: ScopeState[] = [];
    const quota = config.a2a.principals.find((p) => principalId(p) === principal)?.quotas?.budget;
    if (quota && principal !== null) scopes.push(this.scope(`principal:${principal}`, quota));
    const conversation = config.agent.conversation_budget;
    if (conversation !== null && ctx !== ROOT_CONVERSATION)
      scopes.push(this.scope(`conversation:${ctx}`, conversation));
    if (config.intelligence.budget !== null) scopes.push(this.scope('instance', config.intelligence.budget));
    return scopes;
  }

  /** Dispatch admission: an `ok` reserves the estimate and returns the reservation. */
  admitDispatch(
    ctx: string,
    principal: string | null,
    estimate: number,
  ): { admission: Admission; reservation: Reservation | null } {
    const scopes = this.scopesFor(ctx, principal);
    const now = this.deps.now();
    const admission = admit(scopes, estimate, now);
    if (admission.kind !== 'ok' || scopes.length === 0) return { admission, reservation: null };
    this.touch(scopes);
    return { admission, reservation: reserve(scopes, estimate, now) };
  }

  /**
   * Dispatch admission against the fleet's shared window (replicas): the store locks the scopes, the governor
   * decides on every replica's stored counts and live reservations, and an `ok` stores this turn's holds in the
   * same transaction. This process's view of the scopes then takes the shared counts.
   */
  async admitShared(
    ctx: string,
    principal: string | null,
    estimate: number,
  ): Promise<{ admission: Admission; reservation: Reservation | null }> {
    const reserveShared = this.deps.store.budget.reserve;
    const scopes = this.scopesFor(ctx, principal);
    if (reserveShared === undefined || scopes.length === 0) return this.admitDispatch(ctx, principal, estimate);
    // What this process counted reaches the shared window before it is read (a failed write is retried later).
    await this.write();
    const id = newUlid(this.deps.now());
    let decided: { admission: Admission; views: ScopeState[] } | null = null;
    await reserveShared.call(this.deps.store.budget, {
      id,
      scopes: scopes.map((s) => s.name),
      decide: (counters, held) => {
        const now = this.deps.now();
        const views = scopes.map((s) => sharedScope(s, counters, held, now));
        const admission = capSharedWait(admit(views, estimate, now), views, now);
        decided = { admission, views };
        return admission.kind === 'ok' ? holdRows(reserve(views, estimate, now), views) : null;
      },
    });
    const outcome = decided as { admission: Admission; views: ScopeState[] } | null;
    if (outcome === null) throw new Error('the shared budget window was not read');
    const { admission, views } = outcome;
    const now = this.deps.now();
    this.flush();
    const reservation = admission.kind === 'ok' ? { ...reserve(scopes, estimate, now), shared: id } : null;
    scopes.forEach((scope, i) => {
      roll(scope, now);
      const view = views[i];
      if (view !== undefined) adoptShared(scope, view);
      for (const row of counterRows(scope)) this.flushed.set(counterKey(row), row);
    });
    if (reservation !== null) this.keepAlive(id);
    return { admission, reservation };
  }

  /**
   * Per-call admission (reference §10.3): checked against the turn's scopes, not counting the turn's own dispatch
   * reservation, and released at once (nothing is reserved by a call).
   */
  admitCall(ctx: string, principal: string | null, estimate: number, own: Reservation | null): CallGrant {
    const now = this.deps.now();
    const admission = admit(this.scopesFor(ctx, principal), estimate, now, own ?? undefined);
    switch (admission.kind) {
      case 'ok':
        // The worker swaps in a wire model id; a degrade names an alias or a wire id.
        return admission.model === undefined
          ? { ok: true, wait_ms: 0 }
          : { ok: true, wait_ms: 0, model: specForRef(this.deps.config, admission.model).model };
      case 'wait': {
        const ms = Math.min(CALL_WAIT_MAX_MS, Math.max(CALL_WAIT_MIN_MS, admission.untilMs - now));
        return { ok: false, wait_ms: ms };
      }
      default:
        return { ok: false, wait_ms: 0, reason: admission.reason, refused: admission.kind === 'refuse' };
    }
  }

  /** A dispatched turn ended: its reservation settles with what it spent. */
  settle(r: Reservation, usage: Usage): void {
    const scopes = this.reserved(r);
    settle(scopes, r, chargedTokens(usage), this.deps.now());
    this.touch(scopes);
    this.unhold(r, 0);
  }

  /** A running turn's spend as it arrives (a usage frame): charged now, drawn from its reservation. */
  draw(r: Reservation, usage: Usage): void {
    const scopes = this.reserved(r);
    draw(scopes, r, chargedTokens(usage), this.deps.now());
    this.touch(scopes);
    this.unhold(r, r.estimate - (r.drawn ?? 0));
  }

  /** A reservation whose turn never ran. */
  release(r: Reservation): void {
    const scopes = this.reserved(r);
    release(scopes, r, this.deps.now());
    this.touch(scopes);
    this.unhold(r, 0);
  }

  /**
   * A shared reservation now holds `left` (0: it goes): written with the spend that replaced it, in one flush,
   * so the shared window never sees the spend and the hold missing at once. A settled one is flushed at once.
   */
  private unhold(r: Reservation, left: number): void {
    if (r.shared === undefined) return;
    this.holds.set(r.shared, Math.max(0, left));
    if (left > 0) return;
    this.live.delete(r.shared);
    this.flush();
  }

  /** Renews this process's shared reservations while any is live. */
  private keepAlive(id: string): void {
    this.live.add(id);
    if (this.renewal !== undefined) return;
    this.renewal = setInterval(() => {
      if (this.live.size === 0) {
        clearInterval(this.renewal);
        this.renewal = undefined;
        return;
      }
      this.deps.store.budget.renew?.([...this.live]).catch((err: unknown) => {
        this.deps.log.warn('store.checkpoint.fail', { err: `budget reservations: ${describeError(err)}` });
      });
    }, RENEW_MS);
    this.renewal.unref();
  }

  /** Spend without a reservation (think children, compaction), to the scopes of the conversation it ran for. */
  charge(ctx: string, principal: string | null, usage: Usage): void {
    const scopes = this.scopesFor(ctx, principal);
    charge(scopes, chargedTokens(usage), this.deps.now());
    this.touch(scopes);
  }

  /**
   * Adds what every changed scope counted since the last flush to the durable counters (increments, never
   * absolute values). A refused write changed nothing: its scopes are dirty again and the next checkpoint retries.
   */
  flush(): void {
    void this.write();
  }

  /** The flush; resolves once written or refused (never rejects). */
  private write(): Promise<void> {
    if (this.dirty.size === 0 && this.holds.size === 0) return Promise.resolve();
    const names = [...this.dirty];
    this.dirty.clear();
    const holds: BudgetHold[] = [...this.holds].map(([id, tokens]) => ({ id, tokens }));
    this.holds.clear();
    const rows = names.flatMap((name) => {
      const scope = this.scopes.get(name);
      return scope ? counterRows(scope) : [];
    });
    const before = new Map(rows.map((row) => [counterKey(row), this.flushed.get(counterKey(row))]));
    const deltas = rows.map((row) => counterDelta(before.get(counterKey(row)), row)).filter((d) => d !== null);
    for (const row of rows) this.flushed.set(counterKey(row), row);
    if (deltas.length === 0 && holds.length === 0) return Promise.resolve();
    const written = holds.length > 0 ? this.deps.store.budget.add(deltas, holds) : this.deps.store.budget.add(deltas);
    return written.catch((err: unknown) => {
      for (const [key, prev] of before) {
        // Only a baseline still this flush's: one re-based since (an admission took the shared view) stays.
        if (!rows.some((row) => this.flushed.get(key) === row)) continue;
        if (prev === undefined) this.flushed.delete(key);
        else this.flushed.set(key, prev);
      }
      for (const name of names) this.dirty.add(name);
      for (const h of holds) if (!this.holds.has(h.id)) this.holds.set(h.id, h.tokens);
      this.deps.log.error('store.checkpoint.fail', { err: `budget counters: ${describeError(err)}` });
    });
  }

  /**
   * The scope's state, created (with its stored counters) on first use, and rebuilt when a reload changed its
   * policy: a scope keeps no settings of its own beyond the config in force (interfaces §3.6).
   */
  private scope(name: string, policy: Readonly<BudgetConfig>): ScopeState {
    const held = this.scopes.get(name);
    if (held !== undefined && samePolicy(held.policy, policy)) return held;
    const scope = this.restored(name, policy, held);
    this.scopes.set(name, scope);
    return scope;
  }

  /** A scope under `policy`: each window's counts from `held` (same window, same bucket), else from the store. */
  private restored(name: string, policy: Readonly<BudgetConfig>, held: ScopeState | undefined): ScopeState {
    const now = this.deps.now();
    const scope = newScope(name, policy, now);
    if (held) roll(held, now);
    policy.windows.forEach((w, i) => {
      const key = windowKey(w);
      const counter = scope.windows[i] as WindowCounter;
      const kept = held?.windows[held.policy.windows.findIndex((h) => windowKey(h) === key)];
      const row = this.flushed.get(`${name}\n${key}`);
      // A count carries only while it is still the current bucket (the window survives a restart inside it).
      if (kept && kept.index === counter.index) Object.assign(counter, kept);
      else if (row && row.index === counter.index)
        Object.assign(counter, { tokens: row.tokens, requests: row.requests });
    });
    scope.lifetime = held?.lifetime ?? this.flushed.get(`${name}\n${LIFETIME}`)?.tokens ?? 0;
    return scope;
  }

  private reserved(r: Reservation): ScopeState[] {
    return r.marks.map((m) => this.scopes.get(m.scope)).filter((s) => s !== undefined);
  }

  private touch(scopes: readonly ScopeState[]): void {
    for (const s of scopes) this.dirty.add(s.name);
  }
}

/** Same settings: a reload compiles fresh objects, so identity alone would rebuild every scope on every reload. */
function samePolicy(a: Readonly<BudgetConfig>, b: Readonly<BudgetConfig>): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function counterKey(c: BudgetCounter): string {
  return `${c.scope}\n${c.window}`;
}

/** What `row` adds to `prev` (null when nothing): the difference within a bucket, the whole row for a new one. */
function counterDelta(prev: BudgetCounter | undefined, row: BudgetCounter): BudgetCounter | null {
  if (prev === undefined || prev.index !== row.index) return row;
  const tokens = row.tokens - prev.tokens;
  const requests = row.requests - prev.requests;
  return tokens === 0 && requests === 0 ? null : { ...row, tokens, requests };
}

function counterRows(scope: ScopeState): BudgetCounter[] {
  const rows = scope.policy.windows.map((w, i) => {
    const c = scope.windows[i] ?? { index: 0, tokens: 0, requests: 0 };
    return { scope: scope.name, window: windowKey(w), index: c.index, tokens: c.tokens, requests: c.requests };
  });
  rows.push({ scope: scope.name, window: LIFETIME, index: 0, tokens: scope.lifetime, requests: 0 });
  return rows;
}
