// The `await` tool's condition: a CEL expression (the one expression language, ../expr/cel.ts) over `memory`,
// `plan` and `now_ms`. Pure: no clock, no store. Failures are values naming the expression, one line each.
import { type CelProgram, celTypeName, compileCel, keysRead } from '../expr/cel.js';

/** What a condition can see: the present memory keys it names, the clock, the caller's plan counts. */
export interface ConditionState {
  now_ms: number;
  plan: { done: number; total: number };
  memory: ReadonlyMap<string, unknown>;
}

/** A compiled condition: its program and the memory keys it reads (the caller loads and watches only these). */
export interface Condition {
  readonly text: string;
  readonly program: CelProgram;
  readonly keys: readonly string[];
}

export type ConditionCompile = { ok: true; condition: Condition } | { ok: false; error: string };

/** Holds, not yet (a key it reads is absent), or an error naming the condition. */
export type ConditionCheck = { ok: true; satisfied: boolean } | { ok: false; error: string };

/** Longest condition text accepted (CEL's own cap, expr/cel.ts MAX_CEL_BYTES, also applies). */
export const MAX_CONDITION_LENGTH = 2_000;

/** How the condition is quoted in an error: whole when short, else its start. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function failure(text: string, error: string): { ok: false; error: string } {
  return { ok: false, error: `await: condition ${quoted(text)}: ${error}` };
}

/** Compiles `text`; memory must be read as `memory.<key>` or `memory["key"]` so its keys are known up front. */
export function compileCondition(text: string): ConditionCompile {
  const compiled = compileCel(text);
  if (!compiled.ok) return failure(text, compiled.error);
  const keys = keysRead(text, 'memory');
  if (keys === null) return failure(text, 'read memory as memory.<key> or memory["key"] (has(memory.<key>) tests one)');
  return { ok: true, condition: { text, program: compiled.program, keys } };
}

/**
 * Evaluates the condition. A bool decides; any other result is an error (`returned int, want bool`), as is a
 * type mismatch. An evaluation that fails while a memory key it reads is absent is "not yet": the key may be
 * written later (write `has(memory.k)` to test for one); the same failure with every key present is an error.
 */
export function checkCondition(condition: Condition, state: ConditionState): ConditionCheck {
  const memory: Record<string, unknown> = {};
  for (const key of condition.keys) if (state.memory.has(key)) memory[key] = state.memory.get(key);
  const out = condition.program.eval({ memory, plan: state.plan, now_ms: state.now_ms });
  if (!out.ok) {
    if (condition.keys.some((key) => !state.memory.has(key))) return { ok: true, satisfied: false };
    return failure(condition.text, out.error);
  }
  if (typeof out.value !== 'boolean') return failure(condition.text, `returned ${celTypeName(out.value)}, want bool`);
  return { ok: true, satisfied: out.value };
}
