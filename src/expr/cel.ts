// The one expression language, CEL through @bufbuild/cel (producers reference §2.5): workflow fields and the
// `await` tool's condition both compile here. Pure. JSON integers enter CEL as `int` (so `item * 10` works), and
// every result leaves as plain JSON. The library itself loads at the first compile (celLibrary.ts).
import { celLibrary } from './celLibrary.js';

/** Longest CEL source accepted (reference §2.13 caps). */
export const MAX_CEL_BYTES = 4_096;

/** A compiled expression: evaluate it as often as needed. */
export interface CelProgram {
  readonly source: string;
  eval(vars: Readonly<Record<string, unknown>>): CelOutcome;
}

export type CelOutcome = { ok: true; value: unknown } | { ok: false; error: string };
export type CelCompile = { ok: true; program: CelProgram } | { ok: false; error: string };

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
    const { lib, env } = celLibrary();
    const run = lib.plan(env, lib.parse(source));
    const program: CelProgram = {
      source,
      eval: (vars) => {
        const bindings: Record<string, never> = {};
        for (const [name, value] of Object.entries(vars)) bindings[name] = toCel(value) as never;
        const out = run(bindings);
        if (lib.isCelError(out)) return { ok: false, error: out.message };
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

/** The CEL type name of a plain JSON value (for `want bool` errors). */
export function celTypeName(value: unknown): string {
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
  const { isCelList, isCelMap, isCelUint } = celLibrary().lib;
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

/** An expression node as @bufbuild/cel parses it (cel.expr.Expr), only the parts the walk below reads. */
interface ExprNode {
  exprKind: { case?: string; value?: unknown };
}

/**
 * The keys `text` reads from the map variable `root`, each written `root.key` or `root["key"]`: the caller loads
 * only these. Null when `root` is used any other way (a computed key, `k in root`, `root` alone): the keys read
 * could not be known before evaluating. Throws nothing; an expression that does not parse reads nothing.
 */
export function keysRead(text: string, root: string): string[] | null {
  let ast: ExprNode;
  try {
    ast = celLibrary().lib.parse(celSource(text)).expr as unknown as ExprNode;
  } catch {
    return [];
  }
  const keys = new Set<string>();
  const isRoot = (node: ExprNode | undefined): boolean =>
    node?.exprKind.case === 'identExpr' && (node.exprKind.value as { name: string }).name === root;
  const constKey = (node: ExprNode | undefined): string | null => {
    const c =
      node?.exprKind.case === 'constExpr' ? (node.exprKind.value as { constantKind: ExprNode['exprKind'] }) : null;
    return c?.constantKind.case === 'stringValue' ? String(c.constantKind.value) : null;
  };
  let opaque = false;
  const visit = (node: ExprNode | undefined): void => {
    if (node === undefined || opaque) return;
    const { case: kind, value } = node.exprKind;
    if (kind === 'identExpr') opaque ||= isRoot(node);
    else if (kind === 'selectExpr') {
      const sel = value as { operand?: ExprNode; field: string };
      if (isRoot(sel.operand)) keys.add(sel.field);
      else visit(sel.operand);
    } else if (kind === 'callExpr') {
      const call = value as { function: string; target?: ExprNode; args: ExprNode[] };
      const key = call.function === '_[_]' && isRoot(call.args[0]) ? constKey(call.args[1]) : null;
      if (key !== null) keys.add(key);
      else for (const child of [call.target, ...call.args]) visit(child);
    } else for (const child of childrenOf(kind, value)) visit(child);
  };
  visit(ast);
  return opaque ? null : [...keys];
}

/** The sub-expressions of a list, struct/map or comprehension node. */
function childrenOf(kind: string | undefined, value: unknown): ExprNode[] {
  if (kind === 'listExpr') return (value as { elements: ExprNode[] }).elements;
  if (kind === 'structExpr') {
    const entries = (value as { entries: Array<{ keyKind: ExprNode['exprKind']; value: ExprNode }> }).entries;
    return entries.flatMap((e) => (e.keyKind.case === 'mapKey' ? [e.keyKind.value as ExprNode, e.value] : [e.value]));
  }
  if (kind === 'comprehensionExpr') {
    const c = value as Record<'iterRange' | 'accuInit' | 'loopCondition' | 'loopStep' | 'result', ExprNode>;
    return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result];
  }
  return [];
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? text;
}
