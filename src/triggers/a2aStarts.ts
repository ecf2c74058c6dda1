// The `a2a` start nodes (producers reference §3.7): an A2A message from a caller starts a workflow run instead of a
// turn when an armed start matches it. The registry matches and holds each start's target; the task backend asks it
// first for every new message, and the workflow engine registers and removes the starts.
import type { FireResult } from './fireTarget.js';

/** One armed `a2a` start: `command` is the command data part's `op` it takes (none: plain messages only). */
export interface A2aStartSpec {
  /** `<workflow>.<node>`. */
  id: string;
  workflow: string;
  node: string;
  command: string | null;
  /** Caller roles it takes (empty: any). */
  roles: readonly string[];
}

/** What a matching message starts: one run, acting for the caller, in the caller's conversation. */
export interface A2aStartTarget {
  start(
    key: string,
    payload: unknown,
    principal: string,
    conversation: string,
  ): Promise<{ ok: true; run: string } | { ok: false; error: string; queued?: true }>;
  /** The run's end (its task follows it). */
  outcome(run: string): Promise<FireResult>;
}

/** A message as the match reads it. */
export interface A2aAsk {
  command: string | null;
  role: string;
}

/**
 * The first start that takes `ask`, workflows by name then nodes by id (reference §3.7); a start with a `command`
 * takes only that command, one without takes only a message that is no command (so operator commands stay
 * commands). Pure.
 */
export function matchA2aStart<S extends A2aStartSpec>(starts: Iterable<S>, ask: A2aAsk): S | null {
  const sorted = [...starts].sort((a, b) => a.workflow.localeCompare(b.workflow) || a.node.localeCompare(b.node));
  for (const start of sorted) {
    if (start.command !== ask.command) continue;
    if (start.roles.length > 0 && !start.roles.includes(ask.role)) continue;
    return start;
  }
  return null;
}

/** The start key of a run an `a2a` start made: its caller's task id is the last segment. */
export const a2aStartKey = (startId: string, taskId: string): string => `a2a/${startId}/${taskId}`;

/** A new A2A message as the `wait on: message` steps see it (producers reference §3.7 step 1). */
export interface A2aMessage {
  principal: string;
  role: string;
  /** The caller's contextId and the conversation it names for that caller. */
  contextId: string;
  conversation: string;
  /** What makes a retried message be held once per waiting step. */
  key: string;
  payload: unknown;
}

export class A2aStarts {
  readonly #starts = new Map<string, A2aStartSpec & { target: A2aStartTarget }>();
  #messages: ((msg: A2aMessage) => Promise<number>) | null = null;
  #armed: Promise<void> = Promise.resolve();

  /**
   * The starts are armed once `done` settles (the workflow producer arms them after restore): a message that
   * arrived in between would miss its start and be taken for a turn or refused as an unknown command.
   */
  armedWhen(done: Promise<unknown>): void {
    this.#armed = done.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Settles once the starts of this life are armed (a failed arming settles it too: nothing waits forever). */
  get armed(): Promise<void> {
    return this.#armed;
  }

  /** Who takes a new message for waiting workflow steps (the workflow desk). */
  onMessage(take: ((msg: A2aMessage) => Promise<number>) | null): void {
    this.#messages = take;
  }

  /** Hands a new message to the steps waiting for it first; resolves with how many took it (0: none, or no desk). */
  takeMessage(msg: A2aMessage): Promise<number> {
    return this.#messages?.(msg) ?? Promise.resolve(0);
  }

  /** Whether anything could take a message for a waiting step. */
  get takesMessages(): boolean {
    return this.#messages !== null;
  }
  #onEnded: ((taskId: string, result: FireResult) => void) | null = null;
  #onStarted: ((taskId: string, run: string, start: A2aStartSpec | undefined) => void) | null = null;
  #cancel: ((run: string, reason: string) => Promise<boolean>) | null = null;
  #withdraw: ((which: (startKey: string) => boolean, reason: string) => Promise<number>) | null = null;

  /** Who ends a caller's task when its run ends (the task backend). */
  onEnded(cb: (taskId: string, result: FireResult) => void): void {
    this.#onEnded = cb;
  }

  /** Who records the run a queued start began on its caller's task (the task backend). */
  onStarted(cb: (taskId: string, run: string, start: A2aStartSpec | undefined) => void): void {
    this.#onStarted = cb;
  }

  /** A start queued behind concurrency began run `run`: its caller's task learns it (so a cancel reaches it). */
  started(startKey: string, run: string): void {
    if (!startKey.startsWith('a2a/')) return;
    const at = startKey.lastIndexOf('/');
    this.#onStarted?.(startKey.slice(at + 1), run, this.#starts.get(startKey.slice('a2a/'.length, at)));
  }

  /** Who cancels a run (the workflow engine): the task backend cancels an `a2a` start's run through it. */
  onCancel(cancel: (run: string, reason: string) => Promise<boolean>): void {
    this.#cancel = cancel;
  }

  /**
   * Cancels live run `run` (its caller canceled the task); false when it is not live here or no engine is bound.
   * By run, not by start: a start unregistered by a reload leaves its runs cancellable.
   */
  cancelRun(run: string, reason: string): Promise<boolean> {
    return this.#cancel?.(run, reason) ?? Promise.resolve(false);
  }

  /** Who withdraws queued starts (the workflow desk): a task canceled while its start waits starts no run. */
  onWithdraw(withdraw: (which: (startKey: string) => boolean, reason: string) => Promise<number>): void {
    this.#withdraw = withdraw;
  }

  /** Withdraws the queued start of caller task `taskId`; false when none waits (or no desk is bound). */
  async withdraw(taskId: string, reason: string): Promise<boolean> {
    const ofTask = (key: string) => key.startsWith('a2a/') && key.endsWith(`/${taskId}`);
    return ((await this.#withdraw?.(ofTask, reason)) ?? 0) > 0;
  }

  /**
   * A run ended (told by the engine, in whichever life it ends): when an `a2a` start made it, its caller's task
   * follows, so a run restored after a restart still ends its task.
   */
  ended(startKey: string, result: FireResult): void {
    if (!startKey.startsWith('a2a/')) return;
    this.#onEnded?.(startKey.slice(startKey.lastIndexOf('/') + 1), result);
  }

  register(spec: A2aStartSpec, target: A2aStartTarget): void {
    this.#starts.set(spec.id, { ...spec, target });
  }

  unregister(id: string): void {
    this.#starts.delete(id);
  }

  /** The armed start that takes `ask`, with its target, or null (the message goes to a turn). */
  match(ask: A2aAsk): (A2aStartSpec & { target: A2aStartTarget }) | null {
    return matchA2aStart(this.#starts.values(), ask);
  }

  /** Whether any start is armed (a cheap check before building an ask). */
  get size(): number {
    return this.#starts.size;
  }
}
