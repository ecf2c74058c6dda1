// One worker process: spawn in its own process group, frames down on stdin, frames up on stdout, and what the
// watchdog needs to know (its vitals, the pings). Owns the pipes and the kill; never decides what a frame means.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../obs/log.js';
import { forwardWorkerStderr } from '../obs/workerStderr.js';
import { checkUpFrame } from '../protocol/frameCheck.js';
import { encodeFrame, FrameDecoder } from '../protocol/frameCodec.js';
import type { DownFrame, UpFrame } from '../protocol/frames.js';
import { leanHeapArgs } from '../runtime/leanHeap.js';
import type { ChildVitals } from './liveness.js';

/** How to start a worker: the node binary, its flags and the entry script. */
export interface WorkerEntry {
  execPath: string;
  args: string[];
  /** Where the worker's stderr lines go, re-emitted as events (obs/workerStderr.ts); absent: inherited as is. */
  log?: Logger;
}

/**
 * The compiled worker next to this file, with a lean young generation (runtime/leanHeap.ts); under tsx
 * (development) the .ts source with the tsx loader.
 */
export function defaultWorkerEntry(): WorkerEntry {
  const lean = leanHeapArgs(process.env);
  const js = fileURLToPath(new URL('../worker/main.js', import.meta.url));
  if (existsSync(js)) return { execPath: process.execPath, args: [...lean, js] };
  const ts = fileURLToPath(new URL('../worker/main.ts', import.meta.url));
  return { execPath: process.execPath, args: [...lean, '--import', 'tsx', ts] };
}

export interface WorkerCallbacks {
  /** Every frame but `pong` (which only feeds the vitals). */
  onFrame(frame: UpFrame): void;
  /** After the process exited AND its stdout closed, so every frame it wrote was delivered first. */
  onClose(code: number | null, signal: NodeJS.Signals | null): void;
  onProtocolError(message: string): void;
}

export class WorkerHandle {
  private readonly child: ChildProcess;
  private callbacks: WorkerCallbacks | null;
  /** Frames and the exit that arrive before `attach` (a spare worker has none in practice; kept for safety). */
  private early: Array<() => void> = [];
  private closed = false;
  /** An idle worker sent a frame of no turn: it is killed and never handed another. */
  private strayed = false;
  private pingSeq = 0;
  /** The errno name (EMFILE, …) when the process could not be started; null once it runs. */
  spawnError: string | null = null;
  /** True once the OS started the process (node's `spawn` event); what waits for it (`whenSpawned`) runs then. */
  private started = false;
  private onStarted: Array<() => void> = [];
  /** What the watchdog classifies (supervisor/liveness.ts); stamped with `now` as frames arrive. */
  readonly vitals: ChildVitals;
  /** Turns this process has finished and gone idle after (a reused worker, `agent.worker_max_turns`). */
  served = 0;
  /** MCP server specs (JSON) its turns were given: a reused worker keeps their connections between turns. */
  readonly mcpSpecs = new Set<string>();
  /** Resolves once the worker's stderr was read to its end (at once when it is inherited). */
  readonly stderrDone: Promise<void>;

  /** Spawns the worker. Without callbacks it is a spare: events wait until `attach`. */
  constructor(
    entry: WorkerEntry,
    callbacks: WorkerCallbacks | null = null,
    env?: NodeJS.ProcessEnv,
    private readonly now: () => number = Date.now,
  ) {
    this.callbacks = callbacks;
    const at = now();
    this.vitals = {
      phase: callbacks ? 'running' : 'spare',
      exited: false,
      spawnedAt: at,
      lastEventAt: at,
      lastPongAt: at,
      lastBusyAt: 0,
      pingSentAt: null,
      deadlineAt: null,
    };
    this.child = spawn(entry.execPath, entry.args, {
      detached: true,
      stdio: ['pipe', 'pipe', entry.log ? 'pipe' : 'inherit'],
      env: env ?? process.env,
    });
    const stderr = this.child.stderr;
    this.stderrDone = entry.log && stderr ? forwardWorkerStderr(stderr, entry.log, this.pid) : Promise.resolve();
    this.watchChild();
  }

  /** The child's start, its frames on stdout, its spawn errors and its exit. */
  private watchChild(): void {
    this.child.once('spawn', () => {
      this.started = true;
      for (const run of this.onStarted.splice(0)) run();
    });
    const decoder = new FrameDecoder();
    this.child.stdin?.on('error', () => {});
    this.child.stdout?.on('data', (chunk: Buffer) => {
      let frames: unknown[];
      try {
        frames = decoder.push(chunk);
      } catch (err) {
        this.deliver((cb) => cb.onProtocolError(err instanceof Error ? err.message : String(err)));
        this.kill();
        return;
      }
      this.take(frames);
    });
    this.child.on('error', (err: NodeJS.ErrnoException) => {
      // No pid: the process never started (Node reports EMFILE, EAGAIN, … here, then a close with -errno).
      if (this.child.pid === undefined) this.spawnError = err.code ?? 'unknown';
      this.deliver((cb) => cb.onProtocolError(`spawn failed: ${err.message}`));
    });
    this.child.on('close', (code, signal) => {
      this.closed = true;
      this.vitals.exited = true;
      this.deliver((cb) => cb.onClose(code, signal));
    });
  }

  /** Hands decoded frames on; a bad or stray frame kills the worker and drops the rest of the chunk. */
  private take(frames: unknown[]): void {
    for (const raw of frames) {
      const f = checkUpFrame(raw);
      if (typeof f === 'string') {
        this.deliver((cb) => cb.onProtocolError(`${f}; the worker is killed`));
        this.kill();
        return;
      }
      this.note(f);
      if (f.type === 'pong') continue;
      if (this.callbacks === null && this.served > 0) {
        // An idle worker has no turn: a stray frame belongs to its last one and must never reach the next turn
        // (maybe another conversation's), so the worker that sent it is not trusted with one.
        this.strayed = true;
        this.kill();
        return;
      }
      this.deliver((cb) => cb.onFrame(f));
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /**
   * Runs `fn` once the process has started (at once for one already running, a spare): a launch's side effects
   * wait for it, so a spawn that fails asynchronously (EMFILE arrives as an `error` event) leaves none behind.
   */
  whenSpawned(fn: () => void): void {
    if (this.started) fn();
    else if (this.spawnError === null && !this.closed) this.onStarted.push(fn);
  }

  /** False once the process has exited (a spare that died must not be handed a turn). */
  get alive(): boolean {
    return !this.closed && !this.strayed && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Binds a spare to its turn; anything that arrived meanwhile is delivered now, in order. */
  attach(callbacks: WorkerCallbacks): void {
    this.callbacks = callbacks;
    for (const replay of this.early.splice(0)) replay();
  }

  /**
   * Unbinds a worker that finished its turn and went idle: it is a spare again, pinged but expected to do nothing
   * until its next spawn frame.
   */
  detach(): void {
    this.callbacks = null;
    this.served++;
    this.vitals.phase = 'spare';
    this.vitals.deadlineAt = null;
    this.vitals.lastEventAt = this.now();
  }

  /** The worker has its turn: progress is expected from now on, and it dies past `deadlineAt`. */
  markRunning(deadlineAt: number | null): void {
    this.vitals.phase = 'running';
    this.vitals.lastEventAt = this.now();
    this.vitals.deadlineAt = deadlineAt;
  }

  /** Sends the next ping; the oldest unanswered one is remembered until any frame arrives. */
  ping(): void {
    this.vitals.pingSentAt ??= this.now();
    this.send({ type: 'ping', seq: ++this.pingSeq });
  }

  /** Encodes and writes a frame; throws FrameError (before writing anything) when it is over the size limit. */
  send(frame: DownFrame): void {
    const bytes = encodeFrame(frame);
    if (this.closed || !this.child.stdin?.writable) return;
    this.child.stdin.write(bytes);
  }

  /** SIGKILL the worker's whole process group: a runaway turn is a killpg, not a request. */
  kill(): void {
    if (this.closed || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }

  /** A frame is an answer; any frame but a pong is progress; a pong may say the worker is inside a long call. */
  private note(frame: UpFrame): void {
    const at = this.now();
    this.vitals.lastPongAt = at;
    this.vitals.pingSentAt = null;
    if (frame.type !== 'pong') this.vitals.lastEventAt = at;
    else if (frame.busy !== undefined) this.vitals.lastBusyAt = at;
  }

  private deliver(call: (cb: WorkerCallbacks) => void): void {
    const cb = this.callbacks;
    if (cb) call(cb);
    else this.early.push(() => call(this.callbacks as WorkerCallbacks));
  }
}
