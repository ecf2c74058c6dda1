// Which model reference each job runs on, and the checks between intelligence keys (roles, routes, providers,
// fallbacks) that no single key's kind can make (reference §5.2). Pure: the compiled tree in, problems out.
import type { SubPath } from './kinds.js';
import type { Config, IntelligenceConfig, ModelDecl } from './types.js';

/** A job in a turn's life; each runs on the model its role under `intelligence.roles` names. */
export type Job = 'turn' | 'preflight' | 'compaction' | 'think' | 'decide';

const JOBS: readonly Job[] = ['turn', 'preflight', 'compaction', 'think', 'decide'];

/** The model kinds each job can run on. */
const JOB_KINDS: Readonly<Record<Job, readonly ModelDecl['kind'][]>> = {
  turn: ['chat', 'reasoning'],
  preflight: ['chat', 'decision'],
  compaction: ['chat', 'reasoning'],
  think: ['chat', 'reasoning'],
  decide: ['decision', 'chat'],
};

/** The model reference a job runs on: its role, else roles.turn, else `intelligence.model` (alias or wire id). */
export function jobRef(intel: Readonly<IntelligenceConfig>, job: Job): string {
  return intel.roles[job] ?? intel.roles.turn ?? intel.model;
}

/** The declaration of an alias, or undefined when `ref` is not a declared alias. */
export function declOf(intel: Readonly<IntelligenceConfig>, ref: string): ModelDecl | undefined {
  return Object.hasOwn(intel.models, ref) ? intel.models[ref] : undefined;
}

/** Where a key (or a place inside a structured value) was set: `a.yaml:12`, `AGENTD_…`, `--model`; undefined = default. */
export type OriginOf = (path: string, at?: SubPath) => string | undefined;

interface Check {
  intel: Readonly<IntelligenceConfig>;
  originOf: OriginOf;
  problems: string[];
}

/** Every cross-key problem of the intelligence section, each `<origin>: <key path>: <problem>`. */
export function checkIntelligence(config: Readonly<Config>, originOf: OriginOf): string[] {
  const check: Check = { intel: config.intelligence, originOf, problems: [] };
  checkModels(check);
  for (const job of JOBS) checkRole(check, job, config.agent.preflight === 'never');
  checkRoutes(check, config.agent.preflight === 'never');
  return check.problems;
}

function report(check: Check, origin: string | undefined, path: string, problem: string): void {
  check.problems.push(`${origin === undefined ? '' : `${origin}: `}${path}: ${problem}`);
}

function notDeclared(intel: Readonly<IntelligenceConfig>, ref: string): string {
  const declared = Object.keys(intel.models);
  const list = declared.length === 0 ? 'no models are declared' : `declared: ${declared.join(', ')}`;
  return `'${ref}' is not a declared model (${list})`;
}

function kindsText(job: Job): string {
  const [first, second] = JOB_KINDS[job];
  return `${job === 'turn' ? 'the turn' : job} runs on ${first} or ${second} models`;
}

function checkModels(check: Check): void {
  const { intel, originOf } = check;
  const providers = Object.keys(intel.providers);
  const inCycle = new Set<string>();
  for (const [alias, decl] of Object.entries(intel.models)) {
    if (decl.provider !== null && !Object.hasOwn(intel.providers, decl.provider)) {
      const list = providers.length === 0 ? 'no providers are declared' : `declared: ${providers.join(', ')}`;
      const origin = originOf('intelligence.models', [alias, 'provider']);
      const problem = `'${decl.provider}' is not a declared provider (${list})`;
      report(check, origin, `intelligence.models.${alias}.provider`, problem);
    }
    if (decl.fallback === null || inCycle.has(alias)) continue;
    const path = `intelligence.models.${alias}.fallback`;
    const origin = originOf('intelligence.models', [alias, 'fallback']);
    if (declOf(intel, decl.fallback) === undefined) {
      report(check, origin, path, notDeclared(intel, decl.fallback));
      continue;
    }
    const cycle = fallbackCycle(intel, alias);
    if (cycle === null) continue;
    for (const member of cycle) inCycle.add(member);
    report(check, origin, path, `fallback cycle ${[...cycle, alias].join(' → ')}`);
  }
}

/** The aliases of the cycle `alias` starts, in chain order, or null when its fallback chain ends. */
function fallbackCycle(intel: Readonly<IntelligenceConfig>, alias: string): string[] | null {
  const chain: string[] = [];
  let current: string | null = alias;
  while (current !== null) {
    if (current === alias && chain.length > 0) return chain;
    if (chain.includes(current)) return null;
    chain.push(current);
    current = declOf(intel, current)?.fallback ?? null;
  }
  return null;
}

/** A role names a declared model whose kind its job can use; a defaulted role is held to its job as well. */
function checkRole(check: Check, job: Job, preflightNever: boolean): void {
  const { intel, originOf } = check;
  const explicit = intel.roles[job];
  const path = `intelligence.roles.${job}`;
  if (explicit !== null) {
    const decl = declOf(intel, explicit);
    if (decl === undefined) report(check, originOf(path), path, notDeclared(intel, explicit));
    else if (!JOB_KINDS[job].includes(decl.kind)) {
      report(check, originOf(path), path, `'${explicit}' is a ${decl.kind} model; ${kindsText(job)}`);
    }
    return;
  }
  if (job === 'preflight' && preflightNever) return;
  const ref = jobRef(intel, job);
  const decl = declOf(intel, ref);
  if (decl === undefined || JOB_KINDS[job].includes(decl.kind)) return;
  // A turn model the turn cannot use is reported once, on the turn, not again on every role defaulting to it.
  if (job !== 'turn' && !JOB_KINDS.turn.includes(decl.kind)) return;
  // Here roles.turn is unset or names a declared model, so the turn model comes from one of these two keys.
  const turnKey = intel.roles.turn === null ? 'intelligence.model' : 'intelligence.roles.turn';
  const origin = originOf(turnKey) ?? originOf('intelligence.models', [ref]);
  if (job === 'turn') report(check, origin, turnKey, `'${ref}' is a ${decl.kind} model; ${kindsText(job)}`);
  else {
    const problem = `unset, so it is the turn model '${ref}', a ${decl.kind} model; ${kindsText(job)} (set ${path})`;
    report(check, origin, path, problem);
  }
}

/** Each route names a declared model that can run a turn; routes need preflight to choose among them. */
function checkRoutes(check: Check, preflightNever: boolean): void {
  const { intel, originOf } = check;
  const aliases = Object.keys(intel.routes);
  if (aliases.length === 0) return;
  if (preflightNever) {
    report(
      check,
      originOf('intelligence.routes'),
      'intelligence.routes',
      'routes need preflight (agent.preflight is "never")',
    );
  }
  for (const alias of aliases) {
    const path = `intelligence.routes.${alias}`;
    const origin = originOf('intelligence.routes', [alias]);
    const decl = declOf(intel, alias);
    if (decl === undefined) report(check, origin, path, notDeclared(intel, alias));
    else if (!JOB_KINDS.turn.includes(decl.kind)) {
      report(
        check,
        origin,
        path,
        `'${alias}' is a ${decl.kind} model; a route runs the turn, on chat or reasoning models`,
      );
    }
  }
}
