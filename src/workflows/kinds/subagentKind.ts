// The `subagent` step (producers reference §2.8, §1.4): a subagent through the same desk, gates and texts as
// subagent.run, acting for the run. A sync step waits for the child's end; async, detached and warm return the
// handle at once. Better than agentd (§5 items 12, 22): a sync child that did not complete fails the step, its
// `output_schema` is enforced, and the step's end (cancel, timeout, the run's end) cancels it.
import { parseDuration } from '../../config/duration.js';
import { renderSkills } from '../../context/skills.js';
import { SUBAGENT_MODES } from '../../domain/subagent.js';
import { schemaProblem } from '../jsonSchema.js';
import {
  callLimitMs,
  done,
  failed,
  keyedAttempt,
  type NodeKind,
  pinnedKey,
  type StepContext,
  type StepResult,
  unbuiltFieldProblems,
} from '../nodeKind.js';
import { skillsOf, skillsProblems } from './thinkKind.js';

/** Fields agentd parses and never reads: refused at load rather than accepted and ignored. */
const UNBUILT = ['workflow'] as const;
const PRIORITIES = ['low', 'normal', 'high'];
const LIMIT_KEYS = ['steps', 'tokens', 'deadline', 'memory', 'cpu'];
/** subagent.run's arguments the step passes on as rendered. */
const PASSED = [
  ...['instruction', 'template', 'params', 'mode', 'tools', 'servers', 'limits', 'priority', 'context'],
  ...['output_contract', 'output_schema'],
];

/** A value still to be rendered at run time (a template or CEL): checked then, by the desk's gates. */
const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));

const strings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');

function literalProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const { mode, priority, limits } = fields;
  if (mode !== undefined && !deferred(mode) && !(SUBAGENT_MODES as readonly unknown[]).includes(mode))
    problems.push('subagent.mode must be sync|async|detached|warm');
  if (priority !== undefined && !deferred(priority) && !PRIORITIES.includes(priority as string))
    problems.push('subagent.priority must be low|normal|high');
  for (const f of ['tools', 'servers'])
    if (fields[f] !== undefined && !deferred(fields[f]) && !strings(fields[f]))
      problems.push(`subagent.${f} must be a list of strings`);
  if (limits !== undefined && !deferred(limits)) {
    if (limits === null || typeof limits !== 'object' || Array.isArray(limits))
      problems.push(`subagent.limits must be {${LIMIT_KEYS.join(', ')}}`);
    else
      for (const key of Object.keys(limits))
        if (!LIMIT_KEYS.includes(key))
          problems.push(`unknown subagent.limits field "${key}" (allowed: ${LIMIT_KEYS.join(', ')})`);
  }
  return problems;
}

function check(fields: Readonly<Record<string, unknown>>): string[] {
  const problems = [
    ...unbuiltFieldProblems('subagent', fields, UNBUILT),
    ...skillsProblems('subagent', fields['skills']),
  ];
  if ((fields['instruction'] === undefined) === (fields['template'] === undefined))
    problems.push('subagent needs exactly one of instruction and template');
  if (fields['params'] !== undefined && fields['template'] === undefined)
    problems.push('subagent.params needs a template');
  return [...problems, ...literalProblems(fields)];
}

function asMs(value: unknown): number | null {
  try {
    if (typeof value === 'string') return parseDuration(value);
    if (typeof value === 'number' && Number.isFinite(value)) return value * 1000;
  } catch {
    // Unparsable: the desk falls back to limits.run.deadline, which the bound below then caps.
  }
  return null;
}

/**
 * The run's bounds on the child (§5 item 13): its deadline within the step's timeout and the run's deadline,
 * its tokens within what the run's `limits.tokens` has left.
 */
function boundedLimits(ctx: StepContext): Record<string, unknown> {
  const asked = ctx.spec['limits'];
  const limits: Record<string, unknown> = asked !== null && typeof asked === 'object' ? { ...asked } : {};
  const bound = callLimitMs(ctx, Number.POSITIVE_INFINITY);
  if (Number.isFinite(bound)) {
    const own = asMs(limits['deadline']);
    if (own === null || own > bound) limits['deadline'] = `${Math.max(1, Math.floor(bound))}ms`;
  }
  const cap = ctx.run.definition.limits.tokens;
  if (cap !== null) {
    const left = Math.max(0, cap - (ctx.run.tokens ?? 0));
    const own = limits['tokens'];
    if (typeof own !== 'number' || own > left) limits['tokens'] = left;
  }
  return limits;
}

/**
 * The step's `skills` as a system seed ahead of its `context` (the bodies a turn's prompt would carry), or the
 * failure text when one is not in the catalogue.
 */
async function skillSeeds(ctx: StepContext): Promise<{ role: string; content: string }[] | string> {
  const names = skillsOf(ctx).skills;
  if (names === undefined) return [];
  if (!ctx.ports.skills) return 'subagent: skills are not available in this process';
  const got = await ctx.ports.skills(names);
  if (got.unknown.length > 0) return `subagent: skill "${got.unknown[0]}" is not in the skill catalogue`;
  return [{ role: 'system', content: renderSkills([], got.bodies, '') }];
}

async function runSubagent(ctx: StepContext): Promise<StepResult> {
  const port = ctx.ports.subagent;
  if (!port) return failed('subagent: no subagents in this process');
  const args: Record<string, unknown> = {};
  for (const name of PASSED) if (ctx.spec[name] !== undefined) args[name] = ctx.spec[name];
  const seeds = await skillSeeds(ctx);
  if (typeof seeds === 'string') return failed(seeds);
  if (seeds.length > 0) args['context'] = [...seeds, ...(Array.isArray(args['context']) ? args['context'] : [])];
  args['limits'] = boundedLimits(ctx);
  const attempt = keyedAttempt(ctx);
  const end = await port({
    args,
    run: ctx.run.id,
    step: ctx.step.id,
    principal: ctx.run.principal,
    conversation: ctx.run.conversation,
    key: `workflow:${pinnedKey(ctx)}#${attempt}`,
    signal: ctx.signal,
  });
  if (!end.ok) return failed(end.error);
  const { answer } = end;
  if (!end.sync) return done(answer);
  if (answer.status !== 'completed') {
    const error = `subagent ${answer.handle} ${answer.status}${answer.error ? `: ${String(answer.error)}` : ''}`;
    return { type: 'failed', error, ...(answer.status === 'deadline' ? { timeout: true } : {}) };
  }
  const schema = ctx.spec['output_schema'];
  if (schema !== null && typeof schema === 'object') {
    const problem = schemaProblem(schema as Record<string, unknown>, answer.result ?? null);
    if (problem !== null) return failed(`output does not match output_schema: ${problem}`);
  }
  return done(answer);
}

export const SUBAGENT_KIND: NodeKind = {
  name: 'subagent',
  category: 'intelligence',
  implemented: true,
  effect: true,
  doc: "A subagent (as `subagent.run`, with its gates and refusal texts) acting for the run's principal, one hop below the run; its spend counts against the instance, the conversation that started the run and the run's `limits.tokens`. `sync` (default): the step waits for the child and its output is `{handle, status, result, error}`; a child that does not complete fails the step `subagent <h> <status>[: <error>]` (`deadline` is a timeout). `async`, `detached`, `warm`: output `{handle, status: \"running\"}` at once. A restart mid-step finds the same child (respawned by the subagent restore), never a second one; a cancel, a timeout or the run's end cancels a sync child. Its deadline stays within the step's `timeout` and the run's deadline. `skills` (names from `skills.sources`): their bodies are read and given to the child as a system message ahead of `context` (`### Skill: <name>` blocks, as a turn's prompt carries them); a name no source lists fails the step `subagent: skill \"<name>\" is not in the skill catalogue`. Not built yet (refused at load): `workflow`.",
  fields: {
    instruction: { doc: 'What the subagent is asked to do (templates). Exactly one of `instruction` and `template`.' },
    template: { doc: 'A `subagents.templates` name (its instruction, grants, limits and mode).' },
    params: { doc: "The template's parameters, checked at call time (a refusal names the field)." },
    mode: { doc: 'sync (default) | async | detached | warm.' },
    tools: { doc: 'Tool grant patterns (`*`, exact, `prefix*`); absent: no narrowing.' },
    servers: { doc: 'MCP servers granted; absent: every configured server.' },
    limits: { doc: '`{steps, tokens, deadline, memory, cpu}`, as subagent.run.' },
    priority: { doc: 'low | normal | high (niceness; low sheds under pressure).' },
    context: { doc: 'Seed messages `[{role, content}]`.' },
    output_contract: { doc: 'Text the subagent is told its answer must follow.' },
    output_schema: {
      doc: "JSON Schema of the subagent's answer: enforced in the child (re-asks) and checked on `result`.",
    },
    skills: { doc: 'Skill names (`skills.sources`) whose bodies the child is given as a system message.' },
    ...Object.fromEntries(UNBUILT.map((f) => [f, { doc: 'Refused at load: not built.' }])),
  },
  check,
  run: runSubagent,
};
