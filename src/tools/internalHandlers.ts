// The bodies of memory.*, plan.*, finish and sleep, and the name → body table of every internal tool.
// Called only through runInternalTool, which checks schemas and turns anything thrown into an error result.

import { createPlan, type PlanItemInput, type PlanUpdateArgs, settleBound, updatePlan } from '../context/planOps.js';
import { planProgress } from '../context/render.js';
import { reservedKeyProblem, reservedMemoryPrefix } from '../domain/memory.js';
import type { Plan } from '../domain/plan.js';
import { isTerminal } from '../domain/subagent.js';
import { settleNote } from '../subagents/planBindings.js';
import { SUBAGENT_HANDLERS } from '../subagents/subagentTools.js';
import { WORKFLOW_HANDLERS } from '../workflows/lazyTools.js';
import { contextCompact } from './handlers/context.js';
import { type Args, durationMs, type Handler } from './handlers/handler.js';
import { askHuman, messageSend, status } from './handlers/messaging.js';
import { decide, think } from './handlers/reasoning.js';
import { skillsList, skillsLoad, skillsUnload } from './handlers/skills.js';
import { goalClear, goalComplete, goalGet, goalSet, sidePromote, sideStart } from './handlers/steering.js';
import { awaitCondition } from './handlers/waiting.js';
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  toolDefer,
  toolError,
  toolOk,
} from './toolOutcome.js';

/** memory.list's limit when the model gives none. */
const DEFAULT_LIST_LIMIT = 100;

const NO_PLAN = 'no plan';

/** A success once the store has answered (the memory tools wait for their write or read). */
function okWhen(value: Promise<unknown>): ToolOutcome {
  return toolDefer(value.then((result) => ({ result, is_error: false })));
}

function memoryGet(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const key = args['key'] as string;
  const reserved = reservedKeyProblem('memory.get', key);
  if (reserved !== null) return toolError(reserved);
  return okWhen(
    host.memory
      .get(key, host.now())
      .then((entry) =>
        entry === null
          ? { found: false, key, value: null, meta: null }
          : { found: true, key, value: entry.value, meta: { updated: entry.updated, expires: entry.expires } },
      ),
  );
}

function memorySet(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const key = args['key'] as string;
  const reserved = reservedKeyProblem('memory.set', key);
  if (reserved !== null) return toolError(reserved);
  const now = host.now();
  const ttl = args['ttl'] as string | number | undefined;
  const expires = ttl === undefined ? null : now + durationMs(ttl);
  const written = host.memory.set({ key, value: args['value'], expires, updated: now }).then(() => {
    host.onMemoryChanged?.('set', key);
    return { ok: true, key };
  });
  return okWhen(written);
}

function memoryList(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const prefix = (args['prefix'] as string | undefined) ?? '';
  const limit = (args['limit'] as number | undefined) ?? DEFAULT_LIST_LIMIT;
  const reserved = reservedKeyProblem('memory.list', prefix, 'prefix');
  if (reserved !== null) return toolError(reserved);
  // A shorter prefix ("", "_") also matches agentd's own keys: they are left out of the answer.
  const listed = host.memory.list(prefix, limit, host.now());
  return okWhen(
    listed.then(({ keys, truncated }) => ({ keys: keys.filter((k) => !reservedMemoryPrefix(String(k))), truncated })),
  );
}

function memoryDelete(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const key = args['key'] as string;
  const reserved = reservedKeyProblem('memory.delete', key);
  if (reserved !== null) return toolError(reserved);
  const deleted = host.memory.delete(key).then((existed) => {
    if (existed) host.onMemoryChanged?.('delete', key);
    return { deleted: existed };
  });
  return okWhen(deleted);
}

/** Stores `plan` on the caller's conversation (through the host, which checkpoints it) and reports the change. */
function commitPlan(caller: ToolCaller, host: InternalToolHost, plan: Plan | null, op: string): string {
  const conv = host.conversation(caller.conversation);
  host.setPlan(conv, plan);
  const progress = plan === null ? NO_PLAN : planProgress(plan);
  host.onPlanUpdated?.(conv.id, op, progress);
  return progress;
}

function planCreate(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const now = host.now();
  const made = createPlan(args['goal'] as string, args['items'] as PlanItemInput[], now, host.planMaxItems);
  if (!made.ok) return toolError(`plan.create: ${made.error}`);
  return toolOk({ plan: made.plan, progress: commitPlan(caller, host, made.plan, 'create') });
}

function planGet(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const plan = host.conversation(caller.conversation).plan;
  return toolOk({ plan, progress: plan === null ? NO_PLAN : planProgress(plan) });
}

function planUpdate(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const plan = host.conversation(caller.conversation).plan;
  if (plan === null) return toolError('plan.update: there is no plan; create one with plan.create');
  const { bind } = args as PlanUpdateArgs;
  const bound = bind === undefined ? undefined : host.subagents?.find(caller, bind.subagent);
  if (bind !== undefined && bound === undefined) return toolError(`plan.update: no such subagent "${bind.subagent}"`);
  const now = host.now();
  const updated = updatePlan(plan, args as PlanUpdateArgs, now, host.planMaxItems);
  if (!updated.ok) return toolError(`plan.update: ${updated.error}`);
  let next = updated.plan;
  // Bound to a subagent that already ended: no end is left to settle the item, so it settles now (§1.9 step 4).
  if (bound !== undefined && isTerminal(bound.status)) {
    next = settleBound(next, bound.handle, bound.status === 'completed', settleNote(bound), now) ?? next;
  }
  return toolOk({ plan: next, progress: commitPlan(caller, host, next, 'update') });
}

function planClear(_args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const had = host.conversation(caller.conversation).plan !== null;
  if (had) commitPlan(caller, host, null, 'clear');
  return toolOk({ ok: had });
}

/** The worker carries finish's arguments in its delta; the supervisor only acknowledges the call. */
function finish(): ToolOutcome {
  return toolOk({ ok: true });
}

/** Parks until the supervisor's durable timer fires at wakeAt; the answer is the time actually slept. */
function sleep(args: Args, _caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const ms = durationMs(args['duration'] as string | number);
  const start = host.now();
  return {
    kind: 'park',
    wakeAt: start + ms,
    complete: (now) => ({ result: { slept_ms: Math.max(0, now - start) }, is_error: false }),
  };
}

/** Internal tool name → body; a name absent here is not an internal tool. */
export const HANDLERS: Readonly<Record<string, Handler>> = {
  finish,
  'memory.get': memoryGet,
  'memory.set': memorySet,
  'memory.list': memoryList,
  'memory.delete': memoryDelete,
  'plan.create': planCreate,
  'plan.get': planGet,
  'plan.update': planUpdate,
  'plan.clear': planClear,
  sleep,
  await: awaitCondition,
  think,
  decide,
  'context.compact': contextCompact,
  'message.send': messageSend,
  status,
  ask_human: askHuman,
  'goal.set': goalSet,
  'goal.get': goalGet,
  'goal.clear': goalClear,
  'goal.complete': goalComplete,
  'side.start': sideStart,
  'side.promote': sidePromote,
  'skills.list': skillsList,
  'skills.load': skillsLoad,
  'skills.unload': skillsUnload,
  ...SUBAGENT_HANDLERS,
  ...WORKFLOW_HANDLERS,
};
