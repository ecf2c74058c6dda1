// Operator actions from any replica (issue 19; interfaces reference §4.4). Pause and resume sent to one replica
// are stored for the fleet and NOTIFYed (agentd_control); every replica applies them, and one that missed the
// NOTIFY (its listener was down) or started later applies the stored one at its next look. A person may answer a task's question at any
// replica. Where no turn of this replica waits on it, the answer is stored on the task (answeredQuestion) and the
// fleet is woken (NOTIFY agentd_answer); the replica whose turn waits reads its open questions' tasks and hands
// the answers it finds to those turns. A wake-up missed (the listener was reconnecting) costs one sweep.
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { OpenQuestions } from '../runtime/openQuestions.js';
import type { FleetControl, Store } from '../store/store.js';

/** How often open questions are read without a wake-up. */
const SWEEP_MS = 5_000;

export class FleetOperations {
  #off: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reading = false;
  #again = false;
  /** The fleet's pause or resume as applied here; undefined until the first look, which applies what is stored (both
   *  are idempotent: a pause stored between the start's read and this first look is not taken for already applied). */
  #applied: FleetControl | null | undefined;
  /** Bumped at every apply: a stored value read before the last one applied is older than it, and ignored. */
  #generation = 0;
  /** The operator's pause or resume given here whose storing failed: stored again at the next look, not reverted. */
  #unstored: FleetControl | undefined;

  constructor(
    private readonly store: Store,
    private readonly questions: OpenQuestions,
    private readonly log: Logger,
    /** Where a pause or resume sent to any replica is applied here. */
    private readonly control: { pause(): void; resume(): void },
    /** The runs of `a2a` starts live here: a cancel sent to another replica for one of their tasks ends it here. */
    private readonly runs?: { cancelRun(run: string, reason: string): Promise<boolean> },
  ) {}

  /** Listens for answers and operator commands given at other replicas (a store without a fleet has none). */
  start(): void {
    const fleet = this.store.fleet;
    if (fleet === undefined || this.#off !== undefined) return;
    this.#off = fleet.onSignal((signal) => {
      if (signal.channel === 'answer') this.look();
      if (signal.channel === 'cancel') this.cancelRuns();
      if (signal.channel === 'control' && signal.op !== undefined) this.apply(signal.op);
    });
    this.#timer = setInterval(() => {
      this.look();
      this.cancelRuns();
      this.readControl();
    }, SWEEP_MS);
    this.#timer.unref();
    this.readControl();
  }

  /** Applies the fleet's pause or resume here; one refused (the restore is not done yet) waits for the next look. */
  private apply(op: FleetControl): void {
    try {
      this.control[op]();
      this.#applied = op;
      this.#generation++;
      // Only read once nothing here waits to be stored; a NOTIFY heard is a stored value at least as new.
      this.#unstored = undefined;
    } catch (err) {
      this.log.debug('inbox.lease.fail', { err: describeError(err), control: op });
    }
  }

  /** The stored pause or resume, applied when it differs from what this replica applied (a NOTIFY it missed). */
  private readControl(): void {
    if (this.#unstored !== undefined) {
      this.announce(this.#unstored);
      return;
    }
    const asked = this.#generation;
    this.store.fleet
      ?.readControl()
      .then((stored) => {
        if (asked !== this.#generation || this.#unstored !== undefined) return;
        if (stored !== null && stored !== this.#applied) this.apply(stored);
      })
      .catch((err: unknown) => this.log.warn('inbox.lease.fail', { err: describeError(err), control: 'read' }));
  }

  stop(): void {
    this.#off?.();
    this.#off = undefined;
    clearInterval(this.#timer);
  }

  /** An answer was stored here for a question no turn of this replica waits on: the one that waits hears. */
  answeredHere(conversation: string): void {
    const { fleet, leases } = this.store;
    if (fleet === undefined || leases?.holds(conversation) === true) return;
    // A NOTIFY that fails is covered by the holder's sweep.
    fleet.announceAnswer().catch(() => {});
  }

  /** The operator's pause or resume was applied here: the other replicas apply it too (a failed NOTIFY is logged). */
  controlled(op: FleetControl): void {
    this.#applied = op;
    this.#generation++;
    this.announce(op);
  }

  private announce(op: FleetControl): void {
    this.#unstored = op;
    this.store.fleet
      ?.announceControl(op)
      .then(() => {
        if (this.#unstored === op) this.#unstored = undefined;
      })
      .catch((err: unknown) => this.log.warn('inbox.lease.fail', { err: describeError(err), control: op }));
  }

  private cancelRuns(): void {
    const runs = this.runs;
    if (runs === undefined) return;
    const fail = (err: unknown) => this.log.warn('inbox.lease.fail', { err: describeError(err), cancel: 'run' });
    const act = (run: string) => runs.cancelRun(run, 'task canceled at another replica');
    this.store.fleet?.takeRunCancels(act).catch(fail);
    // A run cancelled through the workflow commands at another replica (workflows/fleetRunCancel.ts).
    this.store.fleet?.takeRunRequests((run, reason) => runs.cancelRun(run, reason)).catch(fail);
  }

  private look(): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    this.relay()
      .catch(() => {})
      .finally(() => {
        this.#reading = false;
        if (!this.#again) return;
        this.#again = false;
        this.look();
      });
  }

  /** Hands each open question whose task holds an answer given elsewhere (the task works again) to its turn. */
  private async relay(): Promise<void> {
    for (const taskId of this.questions.ids()) {
      const task = await this.store.tasks.get(taskId);
      const answer = task?.question?.answer;
      if (task === null || answer === undefined || task.state !== 'working') continue;
      this.log.info('a2a.answer.relayed', { task: taskId });
      this.questions.close(taskId, { result: { reply: answer, timed_out: false }, is_error: false });
    }
  }
}
