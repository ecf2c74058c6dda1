// The `security.policies` kind: an ordered list of permission rules (reference §9.4), validated and defaulted.
// Pure. Secrets are not resolved inside rules: a rule matches what the model sends, never a credential.
import { durationKind, type SubPath, type ValueKind } from './kinds.js';
import { choiceAt, closedMapping, isMapping, nameAt, problemAt, shaped } from './mappings.js';
import type { PolicyRule } from './types.js';

const POLICY_TAGS = ['untrusted_input', 'sensitive', 'egress'] as const;
const POLICY_CALLERS = ['root', 'conversation'] as const;
const POLICY_ACTIONS = ['allow', 'deny', 'ask'] as const;
/** How long an `ask` waits for a person by default. */
const ASK_TIMEOUT_MS = 300_000;

const RULE_KEYS = ['name', 'match', 'action', 'on_timeout', 'timeout'];
const MATCH_KEYS = ['tool', 'server', 'tags', 'caller', 'principal', 'args'];
/** `*`, an exact name, or `prefix*`: a star only at the end. */
const PATTERN = /^[^*]*\*?$/;

export function policiesKind(): ValueKind<readonly PolicyRule[]> {
  return {
    type: 'list of policy rules',
    fromYaml: (value) => shaped(() => readRules(value)),
    resolveSecretsIn: (rules) => rules,
  };
}

function readRules(value: unknown): PolicyRule[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return problemAt([], 'expected a list of rules');
  const named = new Map<string, number>();
  return value.map((item, index) => {
    const rule = readRule(item, index);
    const earlier = named.get(rule.name);
    if (earlier !== undefined) problemAt([index, 'name'], `"${rule.name}" already names policies[${earlier}]`);
    named.set(rule.name, index);
    return rule;
  });
}

function readRule(value: unknown, index: number): PolicyRule {
  const at = [index];
  const rule = closedMapping(value, RULE_KEYS, at, 'a mapping with match and action');
  const action = choiceAt(rule['action'], POLICY_ACTIONS, [index, 'action']);
  const name = rule['name'] === undefined ? `policies[${index}]` : nameAt(rule['name'], [index, 'name']);
  const match = readMatch(rule['match'], [index, 'match']);
  if (action !== 'ask') {
    const misplaced = (['on_timeout', 'timeout'] as const).find((key) => rule[key] !== undefined);
    if (misplaced) problemAt([index, misplaced], 'only for action ask');
  }
  const onTimeout =
    rule['on_timeout'] === undefined ? 'deny' : choiceAt(rule['on_timeout'], ['allow', 'deny'], [index, 'on_timeout']);
  return { name, match, action, on_timeout: onTimeout, timeout: readTimeout(rule['timeout'], [index, 'timeout']) };
}

function readTimeout(value: unknown, at: SubPath): number {
  if (value === undefined) return ASK_TIMEOUT_MS;
  const result = durationKind().fromYaml(value);
  return result.ok ? result.value : problemAt(at, result.problem);
}

function readMatch(value: unknown, at: SubPath): PolicyRule['match'] {
  if (value === null || value === undefined) return {};
  const given = closedMapping(value, MATCH_KEYS, at, 'a mapping of conditions');
  const match: { -readonly [K in keyof PolicyRule['match']]: PolicyRule['match'][K] } = {};
  if (given['tool'] !== undefined) match.tool = patternAt(given['tool'], [...at, 'tool']);
  if (given['server'] !== undefined) match.server = nameAt(given['server'], [...at, 'server']);
  if (given['principal'] !== undefined) match.principal = patternAt(given['principal'], [...at, 'principal']);
  if (given['tags'] !== undefined) match.tags = choicesAt(given['tags'], POLICY_TAGS, [...at, 'tags']);
  if (given['caller'] !== undefined) match.caller = choicesAt(given['caller'], POLICY_CALLERS, [...at, 'caller']);
  if (given['args'] !== undefined) match.args = readArgs(given['args'], [...at, 'args']);
  return match;
}

function patternAt(value: unknown, at: SubPath): string {
  const pattern = nameAt(value, at);
  return PATTERN.test(pattern) ? pattern : problemAt(at, 'expected a name, "*" or "prefix*" (a star only at the end)');
}

/** A list of choices; a single one may be given bare (`caller: root`). */
function choicesAt<const V extends string>(value: unknown, values: readonly V[], at: SubPath): V[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return problemAt(at, `expected one or more of ${values.join(', ')}`);
  return list.map((item, i) => choiceAt(item, values, Array.isArray(value) ? [...at, i] : at));
}

/** Dotted argument paths → the JSON value each must equal. */
function readArgs(value: unknown, at: SubPath): Record<string, unknown> {
  if (!isMapping(value)) return problemAt(at, 'expected a mapping of argument paths to values');
  for (const path of Object.keys(value)) {
    if (path.split('.').some((step) => step === '')) problemAt([...at, path], 'expected a dotted argument path');
  }
  return { ...value };
}
