// The round loop of one turn (reference §11): guards → model call → act, wrap up or answer, until a status.
// It only switches on decisions from nextStep.ts; I/O arrives through TurnDeps, so tests run it in-process.
import { describeError } from '../errors.js';
import { isAbortError } from '../intel/httpPost.js';
import type { ModelRequest, ModelResponse } from '../intel/modelRequest.js';
import type { Logger } from '../obs/log.js';
import type { FinishArgs, ProgressEvent, SpawnPayload, TurnResult } from '../protocol/frames.js';
import type { ToolCall, Usage } from '../protocol/messages.js';
import type { TurnStatus } from '../protocol/status.js';
import { addUsage, cacheFields, chargedTokens } from '../protocol/usage.js';
import { loadFamily, TOOLS_MORE } from '../tools/onDemand.js';
import type { CallCode } from './codeRunner.js';
import type { NextStep } from './nextStep.js';
import { checkGuards, finishText, nextCallStep, nextStep } from './nextStep.js';
import { sealCalls } from './seal.js';
import type { CallInternal, CallMcp } from './toolRunner.js';
import { planModeRefusal, runToolCall, type ToolAnswer } from './toolRunner.js';
import type { TurnEnd, TurnState } from './turnState.js';
import { append, appendAssistant, buildRequest, flushParts, initState } from './turnState.js';
import { clearParts } from './wrapUp.js';
import { logWrapUp, runWrapUp } from './wrapUpRunner.js';

export { DEFAULT_TOKENS_PER_CALL } from './nextStep.js';

/** Per-call budget admission's answer (reference §10.3); the frame round-trip arrives with the budget issue. */
export type Admission = { kind: 'go'; model?: string } | { kind: 'stop'; status: TurnStatus; error?: string };

/** Everything the loop does to the outside world. */
export interface TurnDeps {
  callModel(req: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
  /** Round-trips an internal tool to the supervisor; null = no answer. */
  callInternal: CallInternal;
  /** Dials an MCP server; absent ⇒ MCP calls are transport errors. */
  callMcp?: CallMcp;
  /** Runs a code tool in this process (worker/codeRunner.ts). */
  callCode?: CallCode;
  /** Consulted before every model call when spec.budget_admission; absent ⇒ admission is skipped. */
  admitModelCall?: (req: ModelRequest) => Promise<Admission>;
  progress(event: ProgressEvent, fields: Record<string, unknown>): void;
  /** The turn's usage so far, after every model call (a killed worker is charged what it last reported). */
  usage?(usage: Usage): void;
  log: Logger;
  cancelled(): boolean;
  /** Aborts when the turn is cancelled (also aborts a model call in flight). */
  cancelSignal: AbortSignal;
  now(): number;
  /** When the worker started (before MCP connects); the deadline counts from here. Default: runTurn's start. */
  startedAt?: number;
}

/** setTimeout's ceiling; longer deadlines re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

/** One signal for the whole turn: aborts on cancel or at the deadline (a model call in flight included). */
function armTurnSignal(s: TurnState, deps: TurnDeps): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onCancel = (): void => controller.abort();
  if (deps.cancelSignal.aborted) controller.abort();
  else deps.cancelSignal.addEventListener('abort', onCancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = s.deadlineAt - deps.now();
    if (left > MAX_TIMER_MS) {
      timer = setTimeout(arm, MAX_TIMER_MS);
      return;
    }
    timer = setTimeout(
      () => {
        s.deadlineHit = true;
        // The reason reaches a tool call in flight, which reports it (an MCP call answers "… deadline passed").
        controller.abort(new Error('the turn deadline passed'));
      },
      Math.max(0, left),
    );
  };
  if (Number.isFinite(s.deadlineAt)) arm();
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      deps.cancelSignal.removeEventListener('abort', onCancel);
    },
  };
}

async function callModelOnce(
  s: TurnState,
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<{ response: ModelResponse } | { end: TurnEnd }> {
  try {
    return { response: await deps.callModel(buildRequest(s), signal) };
  } catch (err) {
    if (signal.aborted || isAbortError(err)) {
      const cancelled = deps.cancelled() || deps.cancelSignal.aborted;
      return { end: { status: cancelled ? 'cancelled' : 'deadline' } };
    }
    const message = describeError(err);
    const error = message.startsWith('intel:') ? message : `intel: ${message}`;
    return { end: { status: 'failed', error, kind: 'intel' } };
  }
}

function account(s: TurnState, response: ModelResponse, deps: TurnDeps): void {
  s.rounds++;
  s.usage = addUsage(s.usage, response.usage);
  const fields = {
    turn: s.spec.turn_id,
    round: s.rounds,
    tool_calls: s.toolCalls,
    tokens_in: s.usage.input_tokens,
    tokens_out: s.usage.output_tokens,
    ...cacheFields(s.usage),
  };
  deps.usage?.({ ...s.usage });
  deps.progress('turn.round', fields);
  deps.log.debug('turn.round', fields);
}

function asFinishArgs(args: unknown): FinishArgs {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as FinishArgs) : {};
}

async function executeCall(
  s: TurnState,
  call: ToolCall,
  i: number,
  of: number,
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<void> {
  const turn = s.spec.turn_id;
  deps.progress('turn.tool', { turn, tool: call.name, i: i + 1, of });
  deps.log.info('tool.call', { turn, tool: call.name, id: call.id });
  const started = deps.now();
  const refused = planModeRefusal(s.spec, call.name);
  const answer = isToolsMore(s, call)
    ? loadMore(s, call)
    : refused
      ? { result: refused, is_error: true }
      : await runToolCall(call, {
          turn: s.spec,
          n: s.toolCalls - 1,
          signal,
          remainingMs: s.deadlineAt - started,
          callInternal: deps.callInternal,
          callMcp: deps.callMcp,
          callCode: deps.callCode,
        });
  const ts = deps.now();
  deps.log.info('tool.result', { turn, tool: call.name, is_error: answer.is_error, ms: ts - started });
  publishToolCard(s, call, answer, ts - started, deps);
  append(s, { role: 'tool', id: call.id, name: call.name, content: answer.result, is_error: answer.is_error, ts });
  if (call.name === 'finish' && !answer.is_error) s.pendingFinish = asFinishArgs(call.arguments);
}

/** A `tools.more` call of a turn that withholds families: the worker answers it (it only changes the offer). */
function isToolsMore(s: TurnState, call: ToolCall): boolean {
  return call.name === TOOLS_MORE && s.spec.more !== undefined;
}

/** Adds the asked family to the offer from the next round on (tools/onDemand.ts). */
function loadMore(s: TurnState, call: ToolCall): ToolAnswer {
  const loaded = loadFamily(s.tools, s.spec.more ?? {}, call.arguments);
  s.tools = loaded.tools;
  return { result: loaded.result, is_error: loaded.is_error };
}

/** Runs a response's calls in order (§11.4); a status ends the turn, null runs another round. */
async function actOnCalls(
  s: TurnState,
  response: ModelResponse,
  step: Extract<NextStep, { kind: 'act' }>,
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<TurnEnd | null> {
  const calls = step.calls;
  if (step.text) s.lastText = step.text;
  publishBody(s, step.text, deps);
  appendAssistant(s, response, step.text, calls, deps.now());
  s.wrap = clearParts(s.wrap);
  for (const [i, call] of calls.entries()) {
    // Past the deadline, the rest of the round is sealed, not sent: a call must not run unrecorded.
    const stopped = deps.cancelled() ? 'cancelled' : deps.now() >= s.deadlineAt ? 'deadline' : null;
    const next = nextCallStep(call, stopped, s.loopCounts);
    if (next.kind === 'seal') return sealRest(s, calls.slice(i), { status: next.status }, deps);
    s.toolCalls++;
    s.loopCounts = next.counts;
    if (next.kind === 'loop') {
      return sealRest(s, calls.slice(i), { status: 'loop_detected', error: next.error, kind: 'loop' }, deps);
    }
    await executeCall(s, call, i, calls.length, deps, signal);
  }
  if (!s.pendingFinish) return null;
  // `finish` acts only after every call of its round ran; the turn completes whatever finish.status says.
  s.finish = s.pendingFinish;
  s.lastText = finishText(s.lastText, s.finish);
  return { status: 'completed' };
}

function sealRest(s: TurnState, calls: ToolCall[], end: TurnEnd, deps: TurnDeps): TurnEnd {
  for (const msg of sealCalls(calls, end.status, deps.now())) append(s, msg);
  return end;
}

/** Body text for the live feed (its own engine event, apart from tool cards). */
function publishBody(s: TurnState, text: string | undefined, deps: TurnDeps): void {
  if (text) deps.progress('turn.text', { turn: s.spec.turn_id, round: s.rounds, text });
}

/** How much of a tool's result a tool card carries. */
const TOOL_CARD_CHARS = 2_000;

/** A tool card for the live feed: the call and its result, clipped. */
function publishToolCard(s: TurnState, call: ToolCall, answer: ToolAnswer, ms: number, deps: TurnDeps): void {
  const text = typeof answer.result === 'string' ? answer.result : (JSON.stringify(answer.result) ?? 'null');
  const result = text.length > TOOL_CARD_CHARS ? `${text.slice(0, TOOL_CARD_CHARS)}…` : text;
  const fields = { turn: s.spec.turn_id, id: call.id, tool: call.name, arguments: call.arguments };
  deps.progress('turn.tool_done', { ...fields, result, is_error: answer.is_error, ms });
}

/** Appends an answer: the delta holds the joined text, the model's request its own part. */
function appendAnswer(s: TurnState, response: ModelResponse, text: string, deps: TurnDeps): void {
  publishBody(s, text, deps);
  appendAssistant(s, response, text, [], deps.now());
  s.wrap = clearParts(s.wrap);
}

async function admit(s: TurnState, deps: TurnDeps): Promise<TurnEnd | null> {
  if (!s.spec.budget_admission || !deps.admitModelCall) return null;
  const admission = await deps.admitModelCall(buildRequest(s));
  if (admission.kind === 'stop') {
    return admission.error === undefined
      ? { status: admission.status }
      : { status: admission.status, error: admission.error, kind: 'budget' };
  }
  // A degrade model gets no reasoning parts: buildRequest replays only what the current model produced.
  if (admission.model && admission.model !== s.model) {
    deps.log.info('turn.model_degraded', { turn: s.spec.turn_id, from: s.model, to: admission.model });
    s.model = admission.model;
  }
  return null;
}

/** Guards, admission and the model call; a TurnEnd when the round ends the turn before any answer. */
async function callRound(s: TurnState, deps: TurnDeps, signal: AbortSignal): Promise<ModelResponse | TurnEnd> {
  const stop = checkGuards({
    cancelled: deps.cancelled(),
    now: deps.now(),
    deadlineAt: s.deadlineAt,
    deadlineHit: s.deadlineHit,
    rounds: s.rounds,
    maxRounds: s.maxRounds,
    tokensUsed: chargedTokens(s.usage),
    maxTokens: s.maxTokens,
  });
  if (stop) return { status: stop };
  const refused = await admit(s, deps);
  if (refused) return refused;
  deps.progress('turn.think', { turn: s.spec.turn_id, round: s.rounds + 1 });
  const called = await callModelOnce(s, deps, signal);
  if ('end' in called) return called.end;
  account(s, called.response, deps);
  return called.response;
}

function decide(s: TurnState, response: ModelResponse): NextStep {
  return nextStep(response, {
    structured: s.spec.kind === 'think' || s.spec.output_schema !== undefined,
    schema: s.spec.output_schema,
    reasks: s.reasks,
    lastText: s.lastText,
    wrap: s.wrap,
    baseCap: s.maxTokensPerCall,
    workDone: s.toolCalls > 0,
  });
}

/** One round: the model call and what it leads to. Null means run another round. */
async function runRound(s: TurnState, deps: TurnDeps, signal: AbortSignal): Promise<TurnEnd | null> {
  const response = await callRound(s, deps, signal);
  if ('status' in response) return response;
  const step = decide(s, response);
  switch (step.kind) {
    case 'act':
      return actOnCalls(s, response, step, deps, signal);
    case 'wrapup':
      return runWrapUp(s, step.action, response, deps, signal);
    case 'answer':
      appendAnswer(s, response, step.text, deps);
      s.lastText = step.text;
      if ('value' in step) s.value = step.value;
      if (step.note !== undefined) append(s, { role: 'note', text: step.note, ts: deps.now() });
      if (step.wrapup) logWrapUp(s, deps, step.wrapup.check, step.wrapup.attempt, step.wrapup.action);
      return { status: 'completed' };
    case 'reask':
      appendAnswer(s, response, step.text, deps);
      append(s, { role: 'user', text: step.correction, ts: deps.now() });
      s.reasks++;
      deps.log.info('turn.reask', { turn: s.spec.turn_id, reason: step.reason });
      return null;
    case 'stop':
      if (step.text !== undefined) appendAnswer(s, response, step.text, deps);
      if (step.wrapup) logWrapUp(s, deps, step.wrapup.check, step.wrapup.attempt, step.wrapup.action);
      return { status: step.status, error: step.error, kind: 'answer' };
  }
}

function endTurn(s: TurnState, end: TurnEnd, deps: TurnDeps): TurnResult {
  flushParts(s, deps.now());
  const result: TurnResult = {
    status: end.status,
    messages: s.delta,
    usage: { ...s.usage },
    rounds: s.rounds,
    tool_calls: s.toolCalls,
  };
  if (s.lastText !== undefined) result.text = s.lastText;
  if (s.value !== undefined) result.value = s.value;
  if (end.error !== undefined) {
    result.error = end.error;
    result.error_kind = end.kind ?? 'internal';
  }
  if (s.finish) result.finish = s.finish;
  deps.log.info('turn.done', {
    turn: s.spec.turn_id,
    status: end.status,
    rounds: s.rounds,
    tool_calls: s.toolCalls,
    tokens_in: s.usage.input_tokens,
    tokens_out: s.usage.output_tokens,
    ...cacheFields(s.usage),
    ...(end.error !== undefined ? { err: end.error } : {}),
  });
  return result;
}

/** Runs one turn to a status (reference §11); never throws for model or tool failures. */
export async function runTurn(payload: SpawnPayload, deps: TurnDeps): Promise<TurnResult> {
  const s = initState(payload, deps.startedAt ?? deps.now());
  const spec = payload.turn;
  deps.log.info('turn.start', {
    turn: spec.turn_id,
    kind: spec.kind,
    messages: spec.messages.length,
    tools: spec.kind === 'think' ? 0 : spec.tools.length,
  });
  const turnSignal = armTurnSignal(s, deps);
  try {
    let end: TurnEnd | null = null;
    while (end === null) end = await runRound(s, deps, turnSignal.signal);
    return endTurn(s, end, deps);
  } finally {
    turnSignal.dispose();
  }
}
