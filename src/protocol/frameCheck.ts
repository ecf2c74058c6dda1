// Shape checks for frames read off a pipe: a frame that does not match its type's schema is a protocol error,
// never a crash in the reader. The type tables are exhaustive over the unions (a new frame type must be added).
import type { BusyKind, DownFrame, UpFrame } from './frames.js';

type Check = (f: Record<string, unknown>) => boolean;

const BUSY_KINDS: ReadonlySet<string> = new Set<BusyKind>(['model', 'tool', 'budget_wait', 'startup', 'idle']);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

const isCount = (v: unknown): boolean => isNum(v) && v >= 0;

/** Usage counts: input and output numbers; the cache counts, when present, non-negative numbers. */
function isUsage(u: Record<string, unknown>): boolean {
  const cacheOk = [u.cache_read_tokens, u.cache_write_tokens].every((v) => v === undefined || isCount(v));
  return isNum(u.input_tokens) && isNum(u.output_tokens) && cacheOk;
}

function isTurnResult(t: unknown): boolean {
  if (!isObj(t) || !isStr(t.status) || !Array.isArray(t.messages) || !isObj(t.usage)) return false;
  return isUsage(t.usage) && isNum(t.rounds) && isNum(t.tool_calls);
}

const UP_CHECKS: Record<UpFrame['type'], Check> = {
  ready: () => true,
  pong: (f) => isNum(f.seq) && (f.busy === undefined || (isStr(f.busy) && BUSY_KINDS.has(f.busy))),
  event: (f) => isStr(f.event) && isObj(f.fields),
  usage: isUsage,
  failed: (f) => isStr(f.error),
  tool_request: (f) => isNum(f.id) && isStr(f.name),
  budget_request: (f) => isNum(f.id) && isNum(f.estimate),
  journal_lookup: (f) => isNum(f.id) && isStr(f.key) && isStr(f.args_hash),
  journal_record: (f) => isStr(f.key) && isStr(f.args_hash) && typeof f.is_error === 'boolean',
  turn_done: (f) => isTurnResult(f.turn),
  idle: (f) => isCount(f.rss),
};

const DOWN_CHECKS: Record<DownFrame['type'], Check> = {
  spawn: (f) => isNum(f.version) && isObj(f.turn) && isObj(f.intelligence) && isObj(f.limits),
  ping: (f) => isNum(f.seq),
  cancel: (f) => isStr(f.reason),
  tool_result: (f) => isNum(f.id) && typeof f.is_error === 'boolean',
  budget_grant: (f) => isNum(f.id) && typeof f.ok === 'boolean' && isNum(f.wait_ms),
  inject: (f) => isStr(f.message),
  pause: () => true,
  resume: () => true,
};

function check<U>(table: Record<string, Check>, frame: unknown): U | string {
  if (!isObj(frame) || !isStr(frame.type)) return 'a frame without a type';
  const fn = Object.hasOwn(table, frame.type) ? table[frame.type] : undefined;
  if (fn === undefined) return `a frame of unknown type "${frame.type.slice(0, 40)}"`;
  return fn(frame) ? (frame as U) : `a malformed "${frame.type}" frame`;
}

/** The frame as an UpFrame, or a one-line reason it is not one. */
export function checkUpFrame(frame: unknown): UpFrame | string {
  return check<UpFrame>(UP_CHECKS, frame);
}

/** The frame as a DownFrame, or a one-line reason it is not one. */
export function checkDownFrame(frame: unknown): DownFrame | string {
  return check<DownFrame>(DOWN_CHECKS, frame);
}
