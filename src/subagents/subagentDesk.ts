// The subagent desk (reference §1): records by handle, the gates of subagent.run, the other subagent.* tools,
// waiters, results and their notes, and the restore. Only the supervisor holds it; it writes only subagent records.
// The processes are the runner's (subagentRunner.ts); pure policy is gates.ts, results.ts and templates.ts.

import { isTerminal, type SubagentRecord, type SubagentStatus } from '../domain/subagent.js';
import { describeError } from '../errors.js';
import type { Counter } from '../obs/metrics.js';
import type { TurnResult } from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import { chargedTokens } from '../protocol/usage.js';
import type { Store } from '../store/store.js';
import type { EndReason } from '../supervisor/children.js';
import type { Args } from '../tools/handlers/handler.js';
import {
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
  toolDefer,
  toolError,
  toolOk,
} from '../tools/toolOutcome.js';
import { FullResults } from './fullResults.js';
import { bucketFor, checkRun, type GateView, type RateBucket } from './gates.js';
import { capToCeiling, gateViewOf, parentSpec } from './gateView.js';
import { answerOf, listEntry, spawnFailed, statusOf } from './results.js';
import { SpawnJournal } from './spawnJournal.js';
import { SubagentBook } from './subagentBook.js';
import type { OnCallerEnd, SubagentDeskPort, SubagentHost } from './subagentHost.js';
import { deskLeases, LEASE_LOST, outcomeOf, resumeRecord, type SubagentLeases } from './subagentLease.js';
import { buildRecord, findByCall, respawnRuns, runRequestOf, spawnFields } from './subagentRecord.js';
import { type ReturnDeps, returnEnd, returnTurn } from './subagentReturns.js';
import { type LiveSubagent, type RunnerDeps, SubagentRunner } from './subagentRunner.js';
import { resolveTemplate } from './templates.js';
import { SubagentWaiters } from './waiters.js';

/** Why a sync subagent was cancelled with its caller. */
const CALLER_ENDED = "its caller's turn ended";

export interface DeskDeps extends RunnerDeps, ReturnDeps {
  store: Store;
  spawns?: Counter;
  refusals?: Counter;
  /** The pressure gate now (gates 7 and 10); absent: never under pressure. */
  pressure?(): GateView['pressure'];
}

export class SubagentDesk implements SubagentDeskPort {
  private readonly book: SubagentBook;
  readonly records: Map<string, SubagentRecord>;
  readonly live = new Map<string, LiveSubagent>();
  readonly waiters = new SubagentWaiters();
  private readonly runner: SubagentRunner;
  private bucket: RateBucket | null = null;
  private readonly spawnLog: SpawnJournal;
  private readonly full: FullResults;
  readonly leases: SubagentLeases; // replicas: each subagent's own lease; one process: inert
  /** subagent.run calls past the gates whose handle is being minted (they count as live). */
  private minting = 0;
  private stopping = false;
  /** The instance is paused: warm runs are held, and no deadline is armed for a held run. */
  private paused = false;

  constructor(private readonly deps: DeskDeps) {
    this.runner = new SubagentRunner(
      deps,
      {
        onRun: (live, result) => this.onRun(live, result),
        onUsage: (live, spent) => this.onUsage(live, spent),
        onExit: (live, ended, outcome, failed) => this.onExit(live, ended, outcome, failed),
      },
      this,
    );
    this.book = new SubagentBook(deps);
    this.records = this.book.records;
    this.spawnLog = new SpawnJournal(deps.store.subagents, (err) => this.book.storeFailed({ op: 'spawn log' }, err));
    this.full = new FullResults(deps.store.subagents, (handle, err) => this.book.storeFailed({ handle }, err));
    this.leases = deskLeases(deps, this);
  }

  alive(handle: string): boolean {
    return !isTerminal(this.records.get(handle)?.status ?? 'completed');
  }

  /** Live subagents (the gauge). */
  get liveCount(): number {
    return this.live.size;
  }

  /** The records `principal` may see; without one (the operator), all of them. */
  seenBy(principal?: string | null): SubagentRecord[] {
    return [...this.records.values()].filter((r) => principal === undefined || r.requested_by.principal === principal);
  }

  forTurn(onEnd: OnCallerEnd): SubagentHost {
    return {
      run: (caller, args) => this.run(caller, args, onEnd),
      await: (caller, handle, timeoutMs) => this.awaitEnd(caller, handle, timeoutMs, onEnd),
      send: (caller, handle, message) => this.send(caller, handle, message),
      status: (caller, handle) => {
        const record = this.visible(caller, handle);
        return record ? toolOk(statusOf(record)) : toolError(`no such subagent "${handle}"`);
      },
      list: (caller) => toolOk({ subagents: this.seenBy(caller.principal).map(listEntry) }),
      kill: (caller, handle, reason) => this.leases.withRecord(handle, () => this.kill(caller, handle, reason)),
      result: (caller, handle, offset, run) => {
        const record = this.visible(caller, handle);
        return record ? this.full.read(record, offset, run) : toolError(`no such subagent "${handle}"`);
      },
      find: (caller, handle) => this.visible(caller, handle),
    };
  }

  /** Why the subagent's next model call is refused: its subtree (or one above it) spent its ceiling; or null. */
  ceiling = (record: SubagentRecord): string | null => this.book.ceiling(record);

  /** Loads the records; respawns the unfinished (async, sync, warm) and fails interrupted detached ones. */
  async restore(): Promise<void> {
    await this.book.load();
    await this.spawnLog.load(this.records.values(), this.deps.now());
    this.bucket = this.spawnLog.bucket(this.deps.config.limits.subagents.rate, this.deps.now());
    // Replicas: an unfinished subagent is another replica's, or adopted here once its lease expires (the claim).
    if (!this.leases.shared) for (const r of this.records.values()) resumeRecord(this, this.deps.log, r);
    this.leases.start();
    this.prune();
  }

  /** A drain: the workers die, the records stay unfinished, and the next start respawns them. */
  stop(): void {
    this.stopping = true;
    this.leases.stop();
    for (const live of this.live.values()) this.deps.children.kill(live.child, 'drain');
  }

  /** The instance's pause reaches warm sessions at their next run boundary (reference §5 item 23). */
  pause(paused: boolean): void {
    this.paused = paused;
    for (const live of this.live.values()) {
      live.child.handle.send({ type: paused ? 'pause' : 'resume' });
      // A run held by the pause starts now, under its own deadline (reference §5 item 3).
      if (!paused && !live.running) this.armNext(live);
    }
  }

  private run(caller: ToolCaller, raw: Args, onEnd: OnCallerEnd, read = false): ToolOutcome {
    const resolved = resolveTemplate(raw, this.deps.config.subagents);
    if (!resolved.ok) return this.refuse(caller, 'template', resolved.error);
    const args = resolved.args;
    const request = runRequestOf(args);
    const prior = caller.call ? findByCall(this.records.values(), caller, caller.call, request) : undefined;
    // Replicas: a replayed call's subagent may have been started at another replica (read the stored records).
    if (!prior && caller.call && this.leases.shared && !read)
      return toolDefer(this.leases.refresh().then(() => outcomeOf(this.run(caller, raw, onEnd, true))));
    // The same call of a turn replayed after a restart: the subagent it started, not a second one.
    if (prior) return toolDefer(this.answerRun(prior, onEnd));
    const now = this.deps.now();
    const limits = this.deps.config.limits.subagents;
    const verdict = checkRun(
      request,
      gateViewOf({
        ...{ records: this.records, caller, asked: args.servers, minting: this.minting, config: this.deps.config },
        recent: this.spawnLog.count(this.records.values(), now),
        pressure: this.deps.pressure?.() ?? { level: 'ok', cause: null },
      }),
      limits,
      bucketFor(this.bucket, limits.rate, now),
      now,
    );
    this.bucket = verdict.bucket;
    if (!verdict.ok) return this.refuse(caller, verdict.gate, verdict.error);
    // A sync caller can end while its child's handle is minted and stored: the child then never starts.
    const callerState = { ended: false };
    if (verdict.mode === 'sync')
      onEnd(() => {
        callerState.ended = true;
      });
    this.minting++;
    const parent = parentSpec(this.records, caller);
    const started = this.deps.store.sequences
      .next('subagent')
      .then((n) => buildRecord(`sub-${n}`, caller, args, verdict, this.deps.config, this.deps.now(), parent))
      .then((record) => capToCeiling(record, this.records))
      .finally(() => this.minting--)
      .then((record) => this.spawn(record, callerState));
    return toolDefer(
      started.then(
        (record) => (record.status === 'failed' ? spawnFailed(record) : this.answerRun(record, onEnd)),
        (err: unknown) => ({ result: `subagent.run: spawn failed: ${describeError(err)}`, is_error: true }),
      ),
    );
  }

  /** sync: wait for the end (the child dies with its caller's turn); otherwise the handle at once. */
  private answerRun(record: SubagentRecord, onEnd: OnCallerEnd): Promise<ToolResult> {
    if (record.mode !== 'sync') {
      return Promise.resolve({ result: { handle: record.handle, status: record.status }, is_error: false });
    }
    onEnd(() => {
      if (!isTerminal(record.status)) this.cancelLive(record, CALLER_ENDED);
    });
    return this.waiters.wait(record, null, onEnd);
  }

  private refuse(caller: ToolCaller, gate: string, error: string): ToolOutcome {
    this.deps.log.info('subagent.refused', { ctx: caller.conversation, gate, err: error });
    this.deps.refusals?.inc({ gate });
    return toolError(error);
  }

  /** Stores the record, then spawns it `running`; a spawn error leaves it `failed` (reference §1.4 gate 11). */
  private async spawn(record: SubagentRecord, caller: { ended: boolean }): Promise<SubagentRecord> {
    this.records.set(record.handle, record);
    try {
      // Stored before the worker starts (§5 item 2): a refused save fails the spawn and nothing runs.
      await this.deps.store.subagents.save(structuredClone(record));
      if (!(await this.leases.open(record))) return record; // replicas: another replica's claim runs it
    } catch (err) {
      this.records.delete(record.handle);
      throw await this.leases.unopened(record, err);
    }
    if (caller.ended) {
      // It never ran: nothing to return to the caller's conversation.
      this.settle(record, 'cancelled', null, CALLER_ENDED, false);
      return record;
    }
    try {
      this.launch(record, 'subagent.spawn');
    } catch (err) {
      this.settle(record, 'failed', null, `spawn: ${describeError(err)}`);
      return record;
    }
    await this.save(record);
    return record;
  }

  respawn(record: SubagentRecord): void {
    record.attempt++;
    record.runs = respawnRuns(record);
    try {
      this.launch(record, 'subagent.respawn');
      void this.save(record);
    } catch (err) {
      this.settle(record, 'failed', null, `respawn: ${describeError(err)}`);
    }
  }

  private launch(record: SubagentRecord, event: 'subagent.spawn' | 'subagent.respawn'): void {
    const live = this.runner.start(record);
    this.live.set(record.handle, live);
    if (this.paused) live.child.handle.send({ type: 'pause' });
    record.status = 'running';
    record.keyed_runs = record.runs + 1;
    record.updated = this.deps.now();
    this.spawnLog.note(record.handle, record.updated);
    this.deps.spawns?.inc({ mode: record.mode });
    const { node, handle } = live.child;
    this.deps.log.info(event, spawnFields(record, node, handle.pid, Object.keys(this.deps.config.mcp.servers)));
  }

  private visible(caller: ToolCaller, handle: string): SubagentRecord | undefined {
    const record = this.records.get(handle);
    // Another principal's subagent does not exist for this caller (reference §5 item 7 of the issue).
    return record && record.requested_by.principal === caller.principal ? record : undefined;
  }

  private awaitEnd(caller: ToolCaller, handle: string, timeoutMs: number | null, onEnd: OnCallerEnd): ToolOutcome {
    const record = this.visible(caller, handle);
    if (!record) return toolError(`no such subagent "${handle}"`);
    if (isTerminal(record.status)) return toolOk(answerOf(record));
    return toolDefer(this.waiters.wait(record, timeoutMs, onEnd));
  }

  private send(caller: ToolCaller, handle: string, message: string): ToolOutcome {
    const record = this.visible(caller, handle);
    const live = record ? this.live.get(handle) : undefined;
    if (!record || !live || isTerminal(record.status)) return toolError(`subagent "${handle}" is not running`);
    if (record.mode !== 'warm') return toolError(`subagent "${handle}" is not a warm subagent`);
    if (!live.child.handle.alive) return toolError(`subagent "${handle}": send failed`);
    live.child.handle.send({ type: 'inject', message });
    // While paused the worker holds the message: no run starts, so no deadline either.
    if (live.running || this.paused) live.queued++;
    else {
      this.runner.arm(live, true);
      this.keyRun(record);
    }
    return toolOk({ ok: true, handle });
  }

  private kill(caller: ToolCaller, handle: string, reason: string): ToolOutcome {
    const record = this.visible(caller, handle);
    const here = this.live.has(handle) || this.leases.shared; // replicas: cancelled where it runs (a request)
    if (!record || !here || isTerminal(record.status)) return toolError(`subagent "${handle}" is not running`);
    this.cancelLive(record, reason);
    this.deps.log.info('subagent.kill', { handle, reason });
    return toolOk({ ok: true, handle });
  }

  /** `cancelled` with the reason at once (waiters answer now); the worker seals, then its group is killed. */
  cancelLive(record: SubagentRecord, reason: string): void {
    const live = this.live.get(record.handle) ?? this.leases.cancelElsewhere(record.handle, reason);
    if (!live) return;
    live.killed = reason;
    record.status = 'cancelled';
    record.error = reason;
    record.updated = this.deps.now();
    void this.save(record);
    this.waiters.answer(record);
    this.deps.children.cancel(live.child, reason);
  }

  private onUsage(live: LiveSubagent, spent: Usage): void {
    const { record } = live;
    this.book.charge(record, spent);
    const { ctx, principal, run } = record.requested_by;
    this.deps.spent(ctx, principal, spent, run);
  }

  private onRun(live: LiveSubagent, turn: TurnResult): void {
    const { record } = live;
    const produced = turn.value !== undefined ? turn.value : (turn.text ?? null);
    if (record.mode === 'warm' && turn.status !== 'cancelled' && live.killed === null) {
      record.runs++;
      // Each warm run has fresh limits (reference §1.8): its subtree ceiling starts again too.
      record.tree_tokens = 0;
      this.full.keep(record, produced, record.runs);
      record.updated = this.deps.now();
      // A queued injection starts its run now, under its own deadline (reference §5 item 3).
      if (!this.armNext(live)) void this.save(record);
      this.deps.log.info('subagent.turn', { handle: record.handle, status: turn.status, run: record.runs });
      returnTurn(this.deps, record);
      return;
    }
    const finish = turn.finish?.status;
    const status: SubagentStatus = finish && finish !== 'completed' ? finish : turn.status;
    // A warm session's closing run has no result of its own: the last run's stays (reference §5 item 3).
    if (!(record.mode === 'warm' && produced === null)) this.full.keep(record, produced, record.runs + 1);
    this.finish(live, status, record.result, turn.error ?? turn.finish?.reason ?? null);
  }

  /** Starts a held run unless paused; true when one started, its keys taken and saved (reference §5 item 2). */
  private armNext(live: LiveSubagent): boolean {
    this.runner.armNext(live, this.paused);
    if (live.running) this.keyRun(live.record);
    return live.running;
  }

  private keyRun(record: SubagentRecord): void {
    record.keyed_runs = record.runs + 1;
    void this.save(record);
  }

  private onExit(live: LiveSubagent, ended: EndReason | null, outcome: string, failed: string | null): void {
    this.live.delete(live.record.handle);
    if (this.stopping || live.killed === LEASE_LOST) return;
    this.runner.forgetSleeps(live.record.handle);
    if (ended && ended.status !== 'cancelled') this.finish(live, ended.status, null, ended.error);
    else if (failed !== null) this.finish(live, 'failed', null, failed);
    else
      this.finish(
        live,
        live.killed ? 'cancelled' : 'failed',
        live.record.result ?? null,
        live.killed ?? `subagent exited without a result (${outcome})`,
      );
  }

  /** The child's end, once: a kill's `cancelled` wins; the record, waiters, the event and the note. */
  private finish(live: LiveSubagent, status: SubagentStatus, result: unknown, error: string | null): void {
    if (live.done) return;
    live.done = true;
    const killed = live.killed;
    this.settle(live.record, killed === null ? status : 'cancelled', result, killed ?? error);
  }

  /** Records a terminal status durably, answers every waiter, logs `subagent.result` and returns the note. */
  settle(record: SubagentRecord, status: SubagentStatus, result: unknown, error: string | null, note = true) {
    record.status = status;
    // Another result than the kept one (none, at a failure): nothing stored stands behind it.
    if (result !== record.result) record.stored_result = null;
    record.result = result;
    record.error = error;
    record.updated = this.deps.now();
    this.spawnLog.note(record.handle, record.updated);
    void this.save(record);
    const tokens = chargedTokens(record.tokens);
    this.deps.log.info('subagent.result', { handle: record.handle, status, tokens, ...(error ? { err: error } : {}) });
    this.waiters.answer(record);
    this.leases.close(record.handle, status);
    returnEnd(this.deps, record, note);
    this.prune();
  }

  private prune(): void {
    this.book.prune(new Set(this.live.keys()));
  }

  private save(record: SubagentRecord): Promise<void> {
    return this.book.save(record);
  }
}
