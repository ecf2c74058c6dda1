// The turn half of a worker process (reference §1.5), loaded by the entry (main.ts) at its first spawn frame: spawn
// frame in, `ready`, one turn (a `usage` frame after every model call), `usage` + `turn_done` out; then, for a
// `reuse` spawn, the turn is cleared, `idle` goes out and the next spawn frame is read; otherwise exit with the
// status's code. With main.ts, the only worker modules that touch process.*.
import { describeError } from '../errors.js';
import { callModel } from '../intel/modelClient.js';
import type { Logger } from '../obs/log.js';
import { createLogger, registerSecret } from '../obs/log.js';
import { isCredentialHeader } from '../obs/redactor.js';
import { EXIT } from '../protocol/exitTable.js';
import { checkDownFrame } from '../protocol/frameCheck.js';
import type { DownFrame, FrameHandlers, IntelligenceSpec, SpawnPayload, UpFrame } from '../protocol/frames.js';
import { dispatchFrame } from '../protocol/frames.js';
import type { Usage } from '../protocol/messages.js';
import { exitCodeForTurn, type TurnStatus } from '../protocol/status.js';
import { addUsage } from '../protocol/usage.js';
import { type CodeTool, loadCodeTools } from '../tools/codeTools.js';
import type { McpConnection } from '../tools/mcp/mcpConnection.js';
import { admitViaSupervisor } from './budgetAdmission.js';
import { type CheckPermission, codeRunner } from './codeRunner.js';
import type { ControlChannel } from './controlChannel.js';
import { LongCalls } from './longCalls.js';
import type { McpStartup, WorkerMcp } from './mcpServers.js';
import { startMcp, workerMcp } from './mcpServers.js';
import type { TurnDeps } from './roundLoop.js';
import { runTurn } from './roundLoop.js';
import { readSpawnFrame } from './spawnFrame.js';
import { type JournalChannel, journaledMcp } from './toolJournal.js';
import type { ToolAnswer } from './toolRunner.js';
import { type TurnSpans, turnSpans } from './turnSpans.js';
import { InjectQueue, runSession } from './warmSession.js';

/** How long stdio MCP servers get to exit on stdin EOF once the turn's frames are out, before SIGTERM. */
const MCP_CLOSE_GRACE_MS = 250;
/** How long a finished turn's worker waits for its spans to export before it goes idle or exits. */
const SPAN_EXPORT_MS = 1_000;

type Phase = 'await_spawn' | 'running' | 'done';

/**
 * The same list the supervisor holds for this worker's credentials: what the spawn frame names (secret-sourced
 * values, tokens, AWS keys), the model token and credential-named headers. Other env and header values are config,
 * not credentials (obs/redactor.ts).
 */
function registerSecrets(payload: SpawnPayload): void {
  for (const value of payload.redact ?? []) registerSecret(value);
  for (let intel = payload.intelligence as IntelligenceSpec | null | undefined; intel; intel = intel.fallback) {
    registerSecret(intel.token);
    for (const [name, value] of intel.headers) if (isCredentialHeader(name)) registerSecret(value);
  }
  for (const spec of payload.mcp_servers) {
    if (spec.transport !== 'http') continue;
    for (const [name, value] of Object.entries(spec.headers)) if (isCredentialHeader(name)) registerSecret(value);
  }
}

function turnDeps(
  payload: SpawnPayload,
  w: Worker,
  started: number,
  mcp: WorkerMcp | undefined,
  base: Usage = { input_tokens: 0, output_tokens: 0 },
): TurnDeps {
  const { channel, cancel, log, calls } = w;
  const code = w.codeTools ? codeRunner(w.codeTools, payload.turn, checkPermission(channel)) : undefined;
  const callMcp = mcp && journaledMcp(mcp.callMcp, payload.turn, journalChannel(channel), journalHit(log));
  return {
    callModel: (req, signal) =>
      calls.during('model', () =>
        callModel(payload.intelligence, req, signal, { log, timeoutMs: payload.intelligence.timeout_ms }),
      ),
    callInternal: (name, args, index) =>
      calls.during('tool', async () => {
        const reply = await channel.request((id) => ({ type: 'tool_request', id, name, args, index }));
        if (reply?.type !== 'tool_result') return null;
        return { result: reply.result, is_error: reply.is_error === true };
      }),
    admitModelCall: (req) =>
      calls.during('budget_wait', () =>
        admitViaSupervisor(req, {
          ask: async (estimate) => {
            const reply = await channel.request((id) => ({ type: 'budget_request', id, estimate }));
            return reply?.type === 'budget_grant' ? reply : null;
          },
          spec: payload.intelligence,
          remainingMs: () => payload.limits.deadline_ms - (Date.now() - started),
          signal: cancel.signal,
          log,
          turnId: payload.turn.turn_id,
        }),
      ),
    progress: (event, fields) => {
      w.spans?.on(event, fields);
      void channel.send({ type: 'event', event, fields });
    },
    // A warm run reports on top of what earlier runs used; cache counts travel apart (reference §5.3).
    usage: (usage) => void channel.send({ type: 'usage', ...addUsage(base, usage) }),
    log,
    cancelled: () => cancel.signal.aborted,
    cancelSignal: cancel.signal,
    now: Date.now,
    startedAt: started,
    ...(callMcp ? { callMcp: (call) => calls.during('tool', () => callMcp(call)) } : {}),
    ...(code ? { callCode: (call, index, signal) => calls.during('tool', () => code(call, index, signal)) } : {}),
  };
}

/** The supervisor's tool journal over the control channel (a lookup answered by `tool_result`). */
function journalChannel(channel: ControlChannel): JournalChannel {
  return {
    lookup: async (key, args_hash) => {
      const reply = await channel.request((id) => ({ type: 'journal_lookup', id, key, args_hash }));
      if (reply?.type !== 'tool_result' || reply.result === null || typeof reply.result !== 'object') return null;
      return reply.result as ToolAnswer;
    },
    record: (key, args_hash, a) => {
      void channel.send({ type: 'journal_record', key, args_hash, result: a.result, is_error: a.is_error });
    },
  };
}

function journalHit(log: Logger): (key: string, tool: string) => void {
  return (key, tool) => log.info('tool.journal_hit', { key, tool });
}

/** A gated code tool's permission check: a `tool_request` with `check_only`, answered by the supervisor. */
function checkPermission(channel: ControlChannel): CheckPermission {
  return async (name, args, index) => {
    const reply = await channel.request((id) => ({ type: 'tool_request', id, name, args, index, check_only: true }));
    if (reply?.type !== 'tool_result') return null;
    return { result: reply.result, is_error: reply.is_error === true };
  };
}

/** The turn half's mutable state; `channel` is the entry's, given at creation. */
interface Worker {
  phase: Phase;
  log: Logger;
  cancel: AbortController;
  channel: ControlChannel;
  /** The long calls in flight, reported on every pong. */
  calls: LongCalls;
  /** The turn's MCP connections once they are open. */
  mcp?: WorkerMcp;
  /** Every MCP connection this process opened, by server spec: kept between turns, closed when it exits. */
  kept: Map<string, McpConnection>;
  /** The embedding program's code tools, imported from `code_tools_module` (a module is imported once). */
  codeTools?: CodeTool[];
  codeToolsModule?: string;
  /** Turns served and cleared; a spawn frame read after the first is a reused worker's next turn. */
  served: number;
  /** A warm subagent's injected messages and pause flag. */
  injects: InjectQueue;
  /** The turn's span recorder while tracing is on. */
  spans?: TurnSpans;
  /** The control pipe ended (the supervisor is gone): the turn's report is the last thing this process does. */
  channelEnded?: boolean;
}

/**
 * Only a turn that ended cleanly leaves its worker for another: a cancelled or timed-out turn may leave calls in
 * flight (an MCP server still working), and after a failed, looping or exhausted one its state is not trusted.
 */
const REUSABLE_AFTER: ReadonlySet<TurnStatus> = new Set<TurnStatus>(['completed', 'refused']);

/** `reusable`: the turn ended with its `turn_done` and a status in REUSABLE_AFTER. */
type Outcome = { code: number; frames: UpFrame[]; reusable?: boolean };

/** Connects the plan's MCP servers (§1.5 step 6); cancel or the turn deadline interrupts the connects. */
async function connectServers(w: Worker, payload: SpawnPayload, started: number): Promise<McpStartup> {
  if (payload.mcp_servers.length === 0) return startMcp([], { signal: w.cancel.signal, log: w.log });
  const stop = new AbortController();
  const onCancel = (): void => stop.abort();
  w.cancel.signal.addEventListener('abort', onCancel, { once: true });
  if (w.cancel.signal.aborted) stop.abort();
  const { deadline_ms } = payload.limits;
  const left = deadline_ms - (Date.now() - started);
  const timer = deadline_ms > 0 ? setTimeout(() => stop.abort(), Math.max(0, left)) : undefined;
  try {
    return await startMcp(payload.mcp_servers, { signal: stop.signal, log: w.log, kept: w.kept });
  } finally {
    clearTimeout(timer);
    w.cancel.signal.removeEventListener('abort', onCancel);
  }
}

async function runPayload(w: Worker, payload: SpawnPayload): Promise<Outcome> {
  const started = Date.now();
  try {
    const startup = await w.calls.during('startup', () => connectServers(w, payload, started));
    // A server that cannot be reached fails the worker before any model call; an interrupted connect lets the
    // round loop's guards end the turn (cancelled or deadline).
    if (!startup.ok && !startup.interrupted) {
      return { code: EXIT.mcp, frames: [{ type: 'failed', error: startup.error, error_kind: 'mcp' }] };
    }
    if (startup.ok) w.mcp = startup.mcp;
    const module = payload.code_tools_module;
    if (module && (payload.turn.code_tools?.length ?? 0) > 0 && w.codeToolsModule !== module) {
      try {
        w.codeTools = await w.calls.during('startup', () => loadCodeTools(module));
        w.codeToolsModule = module;
      } catch (err) {
        const error = describeError(err);
        return { code: EXIT.generic, frames: [{ type: 'failed', error, error_kind: 'internal' }] };
      }
    }
    w.spans = (await traceTurn(w, payload)) ?? undefined;
    const result = await runSession(payload, started, {
      run: (spec, at, base) => runTurn(spec, turnDeps(spec, w, at, w.mcp, base)),
      send: (frame) => w.channel.send(frame),
      next: () => w.calls.during('idle', () => w.injects.next(w.cancel.signal)),
      now: Date.now,
      log: w.log,
    });
    const frames: UpFrame[] = [
      { type: 'usage', ...result.usage },
      { type: 'turn_done', turn: result },
    ];
    const reusable = REUSABLE_AFTER.has(result.status);
    return { code: exitCodeForTurn(result.status, result.error_kind), frames, reusable };
  } catch (err) {
    const error = `worker: ${describeError(err)}`;
    w.log.error('loop.error', { err: error });
    return { code: EXIT.generic, frames: [{ type: 'failed', error, error_kind: 'internal' }] };
  }
}

/** The span recorder when the spawn frame carries a trace context; a tracing failure never fails the turn. */
async function traceTurn(w: Worker, payload: SpawnPayload): Promise<TurnSpans | null> {
  try {
    return await turnSpans(payload.telemetry, payload.intelligence);
  } catch (err) {
    w.log.warn('trace.export_failed', { err: `traces: ${describeError(err)}` });
    return null;
  }
}

/**
 * Exports the turn's spans after its turn_done is on its way, so the turn never waits on a collector; a collector
 * that is down or silent costs at most SPAN_EXPORT_MS before the worker goes idle or exits (reference §3.4).
 */
async function exportSpans(w: Worker): Promise<void> {
  const spans = w.spans;
  w.spans = undefined;
  const failed = await spans?.close(SPAN_EXPORT_MS).catch((err: unknown) => describeError(err));
  if (failed) w.log.warn('trace.export_failed', { err: failed });
}

/**
 * Sends the terminal frames and waits until they are written; then a reusable turn of a `reuse` spawn clears the
 * turn and goes idle, anything else closes the MCP connections and exits.
 */
async function report(w: Worker, payload: SpawnPayload, outcome: Promise<Outcome>): Promise<void> {
  const { code, frames, reusable } = await outcome;
  w.phase = 'done';
  for (const frame of frames) await w.channel.send(frame);
  await exportSpans(w);
  // A supervisor gone while the last frames went out has no one to hand this worker a turn: exit, never idle.
  if (payload.reuse === true && reusable === true && !w.cancel.signal.aborted && !w.channelEnded) {
    clearTurn(w);
    await w.channel.send({ type: 'idle', rss: process.memoryUsage.rss() });
    return;
  }
  await workerMcp(w.kept)
    .close(MCP_CLOSE_GRACE_MS)
    .catch(() => {});
  w.channel.close();
  process.exit(code);
}

/**
 * Drops everything of the turn that ended: its cancel, long calls, injected messages and MCP routes. What stays is
 * the process's own: imported modules (code tools' module state included, docs/concepts/life-of-a-turn.md "Workers"), MCP connections,
 * registered secrets. The payload and transcript were locals of the turn and are garbage now.
 */
function clearTurn(w: Worker): void {
  w.cancel = new AbortController();
  w.calls = new LongCalls();
  w.injects = new InjectQueue();
  w.mcp = undefined;
  w.spans = undefined;
  w.served++;
  w.phase = 'await_spawn';
}

function start(w: Worker, frame: unknown): void {
  const check = readSpawnFrame(frame);
  if (!check.ok) {
    w.log.error('loop.error', { err: `bad spawn frame: ${check.error}` });
    process.exit(EXIT.config);
  }
  const payload = check.payload;
  registerSecrets(payload);
  const { telemetry } = payload;
  w.log = createLogger({
    level: telemetry.log_level,
    base: { pid: process.pid, comp: 'worker', agent_path: telemetry.agent_path },
  });
  w.log.info('loop.start', { turn: payload.turn.turn_id, kind: payload.turn.kind, tools: payload.turn.tools.length });
  void w.channel.send({ type: 'ready' });
  void report(w, payload, runPayload(w, payload));
}

/** Answers a ping at once, from any phase (a spare is pinged before its spawn frame). */
function pong(w: Worker, seq: number): void {
  const busy = w.calls.current;
  void w.channel.send(busy ? { type: 'pong', seq, busy } : { type: 'pong', seq });
}

function frameHandlers(w: Worker): FrameHandlers<DownFrame> {
  return {
    spawn: () => {}, // only the first frame may be a spawn; a later one is ignored
    ping: (f) => pong(w, f.seq),
    cancel: () => w.cancel.abort(),
    tool_result: (f) => w.channel.resolve(f),
    budget_grant: (f) => w.channel.resolve(f),
    inject: (f) => w.injects.push(f.message),
    pause: () => w.injects.setPaused(true) && w.log.info('loop.paused', {}),
    resume: () => w.injects.setPaused(false) && w.log.info('loop.resumed', {}),
  };
}

/** What the entry (main.ts) hands its frames and the pipe's end to, once this module is loaded. */
export interface TurnWorker {
  onFrame(frame: unknown): void;
  onEnd(reason: string, kind: 'eof' | 'garbage'): void;
  /** A crash, logged with the turn's logger; the MCP servers this process started go with it. */
  crashed(err: unknown): void;
}

/** The turn half of a worker over the entry's `channel`, from its first spawn frame on. */
export function turnWorker(channel: ControlChannel): TurnWorker {
  const w = {
    phase: 'await_spawn',
    log: createLogger({ base: { pid: process.pid, comp: 'worker' } }),
    cancel: new AbortController(),
    calls: new LongCalls(),
    injects: new InjectQueue(),
    kept: new Map(),
    served: 0,
    channel,
  } as Worker;
  const handlers = frameHandlers(w);
  return {
    onFrame: (frame) => {
      const down = checkDownFrame(frame);
      if (w.phase === 'await_spawn') {
        if (typeof down !== 'string' && down.type === 'ping') {
          pong(w, down.seq);
          return;
        }
        // A reused worker may still read a frame meant for its previous turn (a cancel crossing its idle).
        if (w.served > 0 && typeof down !== 'string' && down.type !== 'spawn') return;
        w.phase = 'running';
        start(w, frame);
      } else if (typeof down !== 'string') {
        dispatchFrame(handlers, down);
      } else {
        w.log.warn('loop.error', { err: `ignored ${down}` });
      }
    },
    onEnd: (reason, kind) => {
      w.channelEnded = true;
      if (w.phase === 'done') return;
      // The supervisor is gone (or garbled the pipe): never outlive it as an orphan, nor leave servers behind.
      w.log.error('loop.error', { err: `supervisor channel closed: ${reason}` });
      workerMcp(w.kept).killNow();
      process.exit(w.phase === 'await_spawn' && kind === 'garbage' ? EXIT.config : EXIT.generic);
    },
    crashed: (err) => {
      w.log.error('loop.error', { err: `worker crashed: ${describeError(err)}` });
      workerMcp(w.kept).killNow();
    },
  };
}
