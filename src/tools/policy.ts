// security.policies judged (reference §9.4): the verdict for one call, and whether a rule could ever apply to a
// tool (which decides if its calls must round-trip, §9.3). Pure: no I/O, no clock, no logger.
import { formatDuration } from '../config/duration.js';
import type { PolicyRule } from '../config/types.js';
import type { RegisteredTool } from './registry.js';

/** What a rule can see of one call. `tool` is the registered name (what the model called). */
export interface CallFacts {
  tool: string;
  server?: string;
  tags: string[];
  caller: 'root' | 'conversation';
  principal: string | null;
  args: unknown;
}

export type Verdict =
  | { action: 'allow'; rule: string | null }
  | { action: 'deny'; rule: string }
  | { action: 'ask'; rule: string; on_timeout: 'allow' | 'deny'; timeout: number };

/** A condition's outcome: an args guard over arguments it cannot walk is `unknown`, not false. */
type Truth = 'yes' | 'no' | 'unknown';

/**
 * The first rule whose conditions all hold decides; no rule holding allows (rule null). Fail closed: when a
 * rule's args guard cannot be evaluated (a path runs into a non-object, or the arguments were not JSON), a deny or
 * ask rule applies, while an allow rule does not — an unreadable guard may restrict a call, never grant one.
 */
export function judgeCall(policies: readonly PolicyRule[], facts: CallFacts): Verdict {
  for (const rule of policies) {
    const truth = ruleHolds(rule, facts);
    if (truth === 'no' || (truth === 'unknown' && rule.action === 'allow')) continue;
    if (rule.action === 'allow') return { action: 'allow', rule: rule.name };
    if (rule.action === 'deny') return { action: 'deny', rule: rule.name };
    return { action: 'ask', rule: rule.name, on_timeout: rule.on_timeout, timeout: rule.timeout };
  }
  return { action: 'allow', rule: null };
}

function ruleHolds(rule: PolicyRule, facts: CallFacts): Truth {
  const { match } = rule;
  if (match.tool !== undefined && !matchPattern(match.tool, facts.tool)) return 'no';
  if (match.server !== undefined && match.server !== facts.server) return 'no';
  if (match.tags && !match.tags.every((tag) => facts.tags.includes(tag))) return 'no';
  if (match.caller && !match.caller.includes(facts.caller)) return 'no';
  if (match.principal !== undefined && (facts.principal === null || !matchPattern(match.principal, facts.principal)))
    return 'no';
  return match.args ? argsHold(match.args, facts.args) : 'yes';
}

/** Every dotted path must exist and deep-equal its value; `no` beats `unknown` (one failed condition suffices). */
function argsHold(expected: Readonly<Record<string, unknown>>, args: unknown): Truth {
  let truth: Truth = 'yes';
  for (const [path, value] of Object.entries(expected)) {
    const found = lookup(args, path);
    if (found === 'unknown') truth = 'unknown';
    else if (!found.present || !deepEqual(found.value, value)) return 'no';
  }
  return truth;
}

type Lookup = { present: false } | { present: true; value: unknown } | 'unknown';

/** Walks `a.b.0.c` through objects and arrays; a step into a scalar (or unparsed `{_raw}` arguments) is unknown. */
function lookup(args: unknown, path: string): Lookup {
  if (!isObject(args) || isRawArguments(args)) return 'unknown';
  let current: unknown = args;
  for (const step of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(step)) return 'unknown';
      if (Number(step) >= current.length) return { present: false };
      current = current[Number(step)];
    } else if (isObject(current)) {
      if (!Object.hasOwn(current, step)) return { present: false };
      current = current[step];
    } else return 'unknown';
  }
  return { present: true, value: current };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/** The worker's stand-in for arguments that were not JSON: nothing in them can be checked. */
function isRawArguments(args: Record<string, unknown>): boolean {
  const keys = Object.keys(args);
  return keys.length === 1 && keys[0] === '_raw' && typeof args['_raw'] === 'string';
}

/** JSON equality: same scalars, same array items in order, same object keys (any order). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isObject(a) || !isObject(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
}

/**
 * True when some rule could apply to calls of this tool: its tool, server and tags conditions hold for the tool;
 * caller, principal and args depend on the call, so they count as "might apply" (§9.3).
 */
export function couldMatch(policies: readonly PolicyRule[], tool: RegisteredTool): boolean {
  return policies.some(({ match }) => {
    if (match.tool !== undefined && !matchPattern(match.tool, tool.name)) return false;
    if (match.server !== undefined && match.server !== tool.server) return false;
    return !match.tags || match.tags.every((tag) => tool.tags.includes(tag));
  });
}

/** `*` matches everything, `prefix*` names starting with prefix, anything else itself only. */
export function matchPattern(pattern: string, name: string): boolean {
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

/** The tool error the model sees when a call is refused: by a deny, or by an ask that timed out to deny. */
export function denyMessage(verdict: Exclude<Verdict, { action: 'allow' }>, tool: string): string {
  const base = `tool "${tool}" denied by policy "${verdict.rule}"`;
  return verdict.action === 'ask' ? `${base}: no approval within ${formatDuration(verdict.timeout)}` : base;
}
