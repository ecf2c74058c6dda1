// The budget kinds (`intelligence.budget`, `agent.conversation_budget`, `a2a.principals[].quotas.budget`) and the
// metrics address (reference §10.2, §19). Pure: shapes and validates; the governor reads the result.
import { type SubPath, showValue, type ValueKind } from './kinds.js';
import { choiceAt, closedMapping, nameAt, problemAt, shaped } from './mappings.js';
import type { BudgetConfig, BudgetTactic, BudgetWindow, WindowUnit } from './types.js';

const UNITS: readonly WindowUnit[] = ['second', 'minute', 'hour', 'day', 'week'];
const TACTICS: readonly BudgetTactic[] = ['wait', 'slow', 'degrade', 'refuse', 'fail'];
const BUDGET_KEYS = ['windows', 'lifetime_tokens', 'on_exhausted', 'slow', 'degrade'];
const WINDOW_KEYS = ['per', 'tokens', 'requests', 'reset'];
const RESET = /^([01]\d|2[0-3]):[0-5]\d(Z)?$/;
const DEFAULT_SLOW_FACTOR = 0.5;

/** A budget mapping, or null. */
export function budgetKind(): ValueKind<BudgetConfig | null> {
  return {
    type: 'budget {windows, lifetime_tokens, on_exhausted, slow, degrade} or null',
    fromYaml: (value) => shaped(() => (value === null ? null : readBudget(value, []))),
    resolveSecretsIn: (budget) => budget,
  };
}

/** Reads a budget mapping found at `at` (also a principal's `quotas.budget`). */
export function readBudget(value: unknown, at: SubPath): BudgetConfig {
  const given = closedMapping(value, BUDGET_KEYS, at, 'a budget mapping');
  const windows = readWindows(given['windows'], [...at, 'windows']);
  const lifetime = countAt(given['lifetime_tokens'], [...at, 'lifetime_tokens']);
  const tactic =
    given['on_exhausted'] === undefined ? 'wait' : choiceAt(given['on_exhausted'], TACTICS, [...at, 'on_exhausted']);
  const slow = given['slow'] === undefined ? {} : closedMapping(given['slow'], ['factor'], [...at, 'slow'], '{factor}');
  const factor =
    slow['factor'] === undefined ? DEFAULT_SLOW_FACTOR : factorAt(slow['factor'], [...at, 'slow', 'factor']);
  const degrade =
    given['degrade'] === undefined ? {} : closedMapping(given['degrade'], ['model'], [...at, 'degrade'], '{model}');
  const model = degrade['model'] === undefined ? null : nameAt(degrade['model'], [...at, 'degrade', 'model']);
  if (tactic === 'degrade' && model === null) problemAt([...at, 'on_exhausted'], 'degrade needs degrade.model');
  if (windows.length === 0 && lifetime === null) problemAt(at, 'expected windows or lifetime_tokens');
  return { windows, lifetime_tokens: lifetime, on_exhausted: tactic, slow: { factor }, degrade: { model } };
}

function readWindows(value: unknown, at: SubPath): BudgetWindow[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return problemAt(at, 'expected a list of windows');
  return value.map((item, i) => readWindow(item, [...at, i]));
}

function readWindow(value: unknown, at: SubPath): BudgetWindow {
  const given = closedMapping(value, WINDOW_KEYS, at, 'a window {per, tokens, requests, reset}');
  const per = choiceAt(given['per'], UNITS, [...at, 'per']);
  const tokens = countAt(given['tokens'], [...at, 'tokens']);
  const requests = countAt(given['requests'], [...at, 'requests']);
  if (tokens === null && requests === null) problemAt(at, 'expected tokens or requests');
  let reset: string | null = null;
  if (given['reset'] !== undefined && given['reset'] !== null) {
    if (per !== 'day' && per !== 'week') problemAt([...at, 'reset'], 'only day and week windows have a reset');
    const text = given['reset'];
    if (typeof text !== 'string' || !RESET.test(text)) {
      problemAt([...at, 'reset'], `expected HH:MM or HH:MMZ (UTC), got ${showValue(text)}`);
    }
    reset = text as string;
  }
  return { per, tokens, requests, reset };
}

function countAt(value: unknown, at: SubPath): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  return problemAt(at, `expected a positive integer, got ${showValue(value)}`);
}

/** slow.factor: a number, clamped to 0.01–1 (reference §10.2). */
function factorAt(value: unknown, at: SubPath): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return problemAt(at, `expected a number, got ${showValue(value)}`);
  }
  return Math.min(1, Math.max(0.01, value));
}

/** `HOST:PORT` (port 0–65535; IPv6 hosts in brackets), or null. */
export function metricsAddrKind(): ValueKind<string | null> {
  const check = (value: unknown) => {
    if (value === null) return { ok: true as const, value: null };
    const problem =
      typeof value === 'string' ? addrProblem(value.trim()) : `expected HOST:PORT, got ${showValue(value)}`;
    return problem === null ? { ok: true as const, value: (value as string).trim() } : { ok: false as const, problem };
  };
  return {
    type: 'HOST:PORT or null',
    fromYaml: check,
    fromText: (text) => check(text.trim() === '' || text.trim() === 'null' ? null : text),
  };
}

/** Splits `HOST:PORT` (`[::1]:9464`); null when it is not that shape. */
export function splitAddr(addr: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(addr);
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65_535) return null;
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
}

function addrProblem(text: string): string | null {
  return splitAddr(text) === null ? `expected HOST:PORT (port 0-65535), got ${showValue(text)}` : null;
}
