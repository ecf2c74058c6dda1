// Runs schedules on the durable timer service (producers reference §3.4): each trigger's next occurrence is one
// stored timer, so a restart keeps it (never re-armed from "now"); each occurrence fires once, keyed by trigger id
// and occurrence time, and catch_up decides what a restart that came late fires. The target decides what a
// firing starts.

import type { TimerRecord } from '../domain/timer.js';
import { DaemonError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { TimersPort } from '../store/store.js';
import { FIRED_KEY_KEEP_MS } from './firedKeys.js';
import type { FireTarget } from './fireTarget.js';
import {
  compileSchedule,
  decideOverlap,
  jitterOf,
  nextOccurrence,
  planDue,
  type Schedule,
  type ScheduleFields,
} from './schedule.js';
import type { TimerService } from './timerService.js';
import type { TriggerMetrics } from './triggerMetrics.js';

/** A schedule trigger: its id (e.g. `<workflow>.<node>`), its schedule and the principal its work acts for. */
export interface TriggerSpec {
  id: string;
  schedule: ScheduleFields;
  /** null: nobody, i.e. the operator's reach (producers reference §3.9). */
  principal: string | null;
}

interface Entry {
  spec: TriggerSpec;
  schedule: Schedule;
  fingerprint: string;
  target: FireTarget;
}

/** What a schedule's timer row carries. */
interface SchedulePayload {
  trigger: string;
  occurrence: number;
  /** When the schedule was first armed: `every` counts its grid from here. */
  anchor: number;
  fingerprint: string;
}

export const SCHEDULE_KIND = 'schedule';

/** The key a firing of `trigger` at `occurrenceMs` carries: the same across restarts. */
export function occurrenceKey(trigger: string, occurrenceMs: number): string {
  return `schedule/${trigger}/${occurrenceMs}`;
}

export class ScheduleRunner {
  readonly #entries = new Map<string, Entry>();
  /** Stored timers whose trigger was not added yet in this life. */
  readonly #waiting = new Map<string, TimerRecord>();

  constructor(
    private readonly deps: { timers: TimerService; store: TimersPort; log: Logger; metrics?: TriggerMetrics },
  ) {
    deps.timers.handle(SCHEDULE_KIND, (timer) => this.#onDue(timer));
  }

  /**
   * Arms `spec` (or keeps its stored next occurrence when its schedule is unchanged). Throws a config_invalid
   * DaemonError naming the field for a bad cron, zone or duration.
   */
  async add(spec: TriggerSpec, target: FireTarget): Promise<void> {
    const compiled = compileSchedule(spec.schedule, `trigger ${spec.id}`);
    if (!compiled.ok) {
      this.deps.log.warn('start.schedule.invalid', { trigger: spec.id, errors: compiled.errors });
      throw new DaemonError('config_invalid', compiled.errors.join('; '));
    }
    const entry = { spec, schedule: compiled.schedule, fingerprint: JSON.stringify(spec.schedule), target };
    this.#entries.set(spec.id, entry);
    await this.deps.timers.ready;
    const stored = this.#waiting.get(spec.id) ?? this.deps.timers.list(ownerOf(spec.id))[0];
    this.#waiting.delete(spec.id);
    if (stored && (stored.payload as SchedulePayload).fingerprint === entry.fingerprint) {
      this.deps.log.info('start.schedule.armed', { trigger: spec.id, next_ms: stored.due, restored: true });
      this.deps.timers.rearm(stored);
      return;
    }
    if (await this.deps.store.seen(doneKey(entry))) {
      this.deps.log.info('start.schedule.done', { trigger: spec.id });
      return;
    }
    const now = this.deps.timers.now();
    // A one-shot `at` already past is an occurrence missed while down: catch_up decides at its firing.
    const first =
      compiled.schedule.rule.kind === 'at' ? compiled.schedule.rule.atMs : nextOccurrence(compiled.schedule, now, now);
    if (first === null) return;
    if (first < now - FIRED_KEY_KEEP_MS) {
      // Past the fired-key retention: never caught up (planDue), so nothing to arm.
      this.deps.log.info('start.schedule.done', { trigger: spec.id, expired: true });
      return;
    }
    const timer = this.#timer(entry, first, now);
    // Armed before but its row is gone (deleted between lives): armed again from now, said so.
    if (!(await this.deps.store.remember(armedKey(entry), now)))
      this.deps.log.warn('restore.timer.repaired', { trigger: spec.id, wait: 'schedule', next_ms: timer.due });
    await this.deps.timers.arm(timer);
    this.deps.log.info('start.schedule.armed', { trigger: spec.id, next_ms: timer.due });
  }

  /** Disarms a trigger: its stored timer is deleted. */
  async remove(id: string): Promise<void> {
    this.#entries.delete(id);
    this.#waiting.delete(id);
    await this.deps.timers.cancelOwner(ownerOf(id));
    await this.deps.store.forget(`${ARMED_PREFIX}${id}/`, Number.MAX_SAFE_INTEGER);
  }

  /**
   * Forgets the done keys of one-shot schedules remembered more than 7 days before `now` (the fired-key retention);
   * resolves with how many. A later life may arm such an `at` again, and finds it too old to catch up.
   */
  pruneDone(now: number): Promise<number> {
    return this.deps.store.forget(DONE_PREFIX, now - FIRED_KEY_KEEP_MS);
  }

  /** Stops firing `id` in this life (a drain); its stored timer stays for the next life. */
  detach(id: string): void {
    this.#entries.delete(id);
  }

  /** The next firing time of each armed trigger (status). */
  nextFirings(): Array<{ trigger: string; next_ms: number }> {
    return [...this.#entries.keys()].flatMap((trigger) =>
      this.deps.timers.list(ownerOf(trigger)).map((t) => ({ trigger, next_ms: t.due })),
    );
  }

  async #onDue(timer: TimerRecord): Promise<TimerRecord | undefined | 'keep'> {
    const at = timer.payload as SchedulePayload;
    const entry = this.#entries.get(at.trigger);
    if (entry === undefined || entry.fingerprint !== at.fingerprint) {
      this.#waiting.set(at.trigger, timer);
      return 'keep';
    }
    const now = this.deps.timers.now();
    const plan = planDue(entry.schedule, at.occurrence, timer.due, now, at.anchor);
    if (plan.skipped > 0 || plan.fire.length > 1) {
      const { catchUp } = entry.schedule;
      this.deps.log.info('start.schedule.missed', {
        trigger: at.trigger,
        fired: plan.fire.length,
        skipped: plan.skipped,
        catch_up: catchUp,
      });
      this.deps.metrics?.caughtUp(plan.fire.length);
    }
    for (const occurrence of plan.fire) await this.#fire(entry, occurrence);
    if (plan.next === null) {
      await this.deps.store.remember(doneKey(entry), now);
      this.deps.log.info('start.schedule.done', { trigger: at.trigger });
      return undefined;
    }
    return this.#timer(entry, plan.next, at.anchor);
  }

  async #fire(entry: Entry, occurrence: number): Promise<void> {
    const { id } = entry.spec;
    const decision = decideOverlap(entry.schedule.overlap, entry.target.live?.(id) ?? false);
    if (decision === 'skip') {
      this.deps.log.info('start.schedule.skipped', { trigger: id, scheduled_for: occurrence, reason: 'overlap' });
      return;
    }
    if (decision === 'cancel_previous') entry.target.cancel?.(id);
    await entry.target.fire(id, occurrence, occurrenceKey(id, occurrence), { scheduled_for: occurrence });
    this.deps.log.info('start.fired', { trigger: id, kind: 'schedule', scheduled_for: occurrence });
    this.deps.metrics?.fired('schedule');
  }

  #timer(entry: Entry, occurrence: number, anchor: number): TimerRecord {
    const { id } = entry.spec;
    const payload: SchedulePayload = { trigger: id, occurrence, anchor, fingerprint: entry.fingerprint };
    const due = occurrence + jitterOf(entry.schedule, id, occurrence);
    return { id: `schedule:${id}`, owner: ownerOf(id), kind: SCHEDULE_KIND, due, payload };
  }
}

function ownerOf(trigger: string): string {
  return `trigger:${trigger}`;
}

const DONE_PREFIX = 'schedule-done/';
const ARMED_PREFIX = 'schedule-armed/';

/** Remembered when a schedule is first armed: a later life that finds no row for it knows the row was lost. */
function armedKey(entry: Entry): string {
  return `${ARMED_PREFIX}${entry.spec.id}/${entry.fingerprint}`;
}

/** Remembered once a schedule has no occurrence left (a fired `at`): a later life does not arm it again. */
function doneKey(entry: Entry): string {
  return `${DONE_PREFIX}${entry.spec.id}/${entry.fingerprint}`;
}
