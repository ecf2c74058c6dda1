// CEL through @bufbuild/cel (producers reference §2.5): compiled once, evaluated over plain JSON namespaces.
// Pure. JSON integers enter CEL as `int` (so `item * 10` works), and every result leaves as plain JSON.
import { celEnv, isCelError, isCelList, isCelMap, isCelUint, parse, plan } from '@bufbuild/cel';

/** Longest CEL source accepted (reference §2.13 caps). */
export const MAX_CEL_BYTES = 4_096;

/** A compiled expression: evaluate it as often as needed. */
export interface CelProgram {
  readonly source: string;
  eval(vars: Readonly<Record<string, unknown>>): CelOutcome;
}

export type CelOutcome = { ok: true; value: unknown } | { ok: false; error: string };
export type CelCompile = { ok: true; program: CelProgram } | { ok: false; error: string };

const ENV = celEnv();

/** Strips an optional `CEL:` prefix (definitions may write it or not where a field is CEL-only). */
export function celSource(text: string): string {
  return text.startsWith('CEL:') ? text.slice(4).trim() : text.trim();
}

/** True when a string field asks for CEL evaluation (`CEL: …`). */
export function isCelString(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('CEL:');
}

/** Parses and plans `text` (with or without `CEL:`); the error is one line. */
export function compileCel(text: string): CelCompile {
  const source = celSource(text);
  if (new TextEncoder().encode(source).length > MAX_CEL_BYTES)
    return { ok: false, error: `CEL expression exceeds ${MAX_CEL_BYTES} bytes` };
  try {
    const run = plan(ENV, parse(source));
    const program: CelProgram = {
      source,
      eval: (vars) => {
        const bindings: Record<string, never> = {};
        for (const [name, value] of Object.entries(vars)) bindings[name] = toCel(value) as never;
        const out = run(bindings);
        if (isCelError(out)) return { ok: false, error: out.message };
        return { ok: true, value: fromCel(out) };
      },
    };
    return { ok: true, program };
  } catch (err) {
    return { ok: false, error: `CEL parse error: ${firstLine(err)}` };
  }
}

/** Compiles and evaluates once (templates' inline expressions, tests). */
export function evalCel(text: string, vars: Readonly<Record<string, unknown>>): CelOutcome {
  const compiled = compileCel(text);
  return compiled.ok ? compiled.program.eval(vars) : compiled;
}

/** Evaluates a predicate: anything but a bool is an error (reference §2.5). */
export function evalPredicate(program: CelProgram, vars: Readonly<Record<string, unknown>>): CelOutcome {
  const out = program.eval(vars);
  if (!out.ok || typeof out.value === 'boolean') return out;
  return { ok: false, error: `CEL expression returned ${celTypeName(out.value)}, want bool` };
}

function celTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  return typeof value;
}

/** JSON → CEL input: integral numbers become `int`, objects stay maps, arrays lists. */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCel(v);
    return out;
  }
  return value;
}

/** CEL value → plain JSON (bigint → number, CelList → array, CelMap → object). */
export function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (isCelUint(value)) return Number(value.value);
  if (isCelList(value)) return [...value].map(fromCel);
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(isCelUint(k) ? k.value : k)] = fromCel(v);
    return out;
  }
  if (value instanceof Uint8Array) return [...value];
  if (value !== null && typeof value === 'object') return String(value);
  return value;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? text;
}
