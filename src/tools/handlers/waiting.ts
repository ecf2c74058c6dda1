// await (reference §13): a condition over runtime state, answered at once when it holds, else watched until
// it does or the timeout passes. The condition is CEL (../condition.ts); this body only reads the state.
import { formatDuration } from '../../config/duration.js';
import type { MemoryEntry } from '../../domain/memory.js';
import { isExpired } from '../../store/memoryKeys.js';
import { type Condition, type ConditionState, checkCondition, compileCondition } from '../condition.js';
import {
  type InternalToolHost,
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
  toolDefer,
  toolError,
  toolUnavailable,
} from '../toolOutcome.js';
import { type Args, durationMs } from './handler.js';

/** await's timeout when the model gives none, and the longest it may ask for. */
const AWAIT_DEFAULT_TIMEOUT = '10m';
const AWAIT_MAX_TIMEOUT_MS = 24 * 3_600_000;

/**
 * The memory keys a condition names, read once and then kept current by the store's change notification (no
 * store read per reactor step). Subscribed before the reads, so a write landing meanwhile is not missed. A change
 * of a watched key asks for a re-check at once: the write's own turn may not end (or step the reactor) for long.
 */
async function watchedMemory(keys: readonly string[], host: InternalToolHost) {
  const entries = new Map<string, MemoryEntry | null>();
  const off = host.memory.onChange(({ key, entry }) => {
    if (!keys.includes(key)) return;
    entries.set(key, entry);
    host.wake?.();
  });
  try {
    const now = host.now();
    for (const key of keys) {
      const entry = await host.memory.get(key, now);
      if (!entries.has(key)) entries.set(key, entry);
    }
  } catch (err) {
    off();
    throw err;
  }
  return { entries, off };
}

/** The state a condition sees now: the watched memory keys, the clock, the caller's plan counts. */
function readState(
  entries: ReadonlyMap<string, MemoryEntry | null>,
  caller: ToolCaller,
  host: InternalToolHost,
): ConditionState {
  const now = host.now();
  const memory = new Map<string, unknown>();
  for (const [key, entry] of entries) {
    if (entry !== null && !isExpired(entry.expires, now)) memory.set(key, entry.value);
  }
  const plan = host.conversation(caller.conversation).plan;
  const done = plan === null ? 0 : plan.items.filter((item) => item.status === 'done').length;
  return { now_ms: now, plan: { done, total: plan?.items.length ?? 0 }, memory };
}

/** Answers at once when `condition` holds; else watches it until it does or `timeoutAt` (an error ends it). */
async function watchCondition(
  condition: Condition,
  caller: ToolCaller,
  host: InternalToolHost,
  watch: NonNullable<InternalToolHost['watch']>,
  timeoutAt: number,
): Promise<ToolResult> {
  const { entries, off } = await watchedMemory(condition.keys, host);
  try {
    const check = () => checkCondition(condition, readState(entries, caller, host));
    let last = check();
    // A watch ends when the condition holds or fails; `last` says which.
    const ended = (): boolean => !last.ok || last.satisfied;
    const hit =
      ended() ||
      (await watch(() => {
        last = check();
        return ended();
      }, timeoutAt));
    if (!last.ok) return { result: last.error, is_error: true };
    return { result: hit ? { satisfied: true } : { satisfied: false, timed_out: true }, is_error: false };
  } finally {
    off();
  }
}

/** Answers `{satisfied: true}` once the condition holds (at once when it already does), else `timed_out`. */
export function awaitCondition(args: Args, caller: ToolCaller, host: InternalToolHost): ToolOutcome {
  const { watch } = host;
  if (watch === undefined) return toolUnavailable('await');
  const compiled = compileCondition(args['condition'] as string);
  if (!compiled.ok) return toolError(compiled.error);
  const timeoutMs = durationMs((args['timeout'] as string | number | undefined) ?? AWAIT_DEFAULT_TIMEOUT);
  if (timeoutMs > AWAIT_MAX_TIMEOUT_MS) {
    return toolError(`await: timeout ${formatDuration(timeoutMs)} is longer than the 24h maximum`);
  }
  return toolDefer(watchCondition(compiled.condition, caller, host, watch.bind(host), host.now() + timeoutMs));
}
