// The `think` step (producers reference §2.8): a tool-less structured turn through the inbox, like an agent step's,
// whose one JSON answer is the output. A reply that misses the schema or fails `check` is re-asked, then fails.
import { compileCel, evalPredicate } from '../../expr/cel.js';
import { parseTolerant } from '../../protocol/tolerantJson.js';
import { schemaProblem } from '../jsonSchema.js';
import {
  chargeTurn,
  done,
  failed,
  keyedAttempt,
  lateSpend,
  type NodeKind,
  pinnedKey,
  type StepContext,
  type StepResult,
  type StepTurnEnd,
  turnTokenCap,
} from '../nodeKind.js';
import { lookupPath } from '../templates.js';

/** Turns a step makes after a bad reply when it sets no `retries`; at most MAX_RETRIES. */
const DEFAULT_RETRIES = 1;
const MAX_RETRIES = 10;

/** What one think-shaped step asks: the preset kinds build one of these from their fields. */
export interface ThinkAsk {
  prompt: string;
  schema: Record<string, unknown> | undefined;
  /** Scope paths given to the model as `<path> = <value>` system lines. */
  reads: readonly string[];
  /** CEL over `output` (and the run's namespaces) that an acceptable reply must satisfy. */
  check: string | null;
  retries: number;
  system?: string;
  skills?: string[];
}

/** The user message: the prompt, then the schema demand (reference §2.8). */
function askText(ask: ThinkAsk): string {
  if (ask.schema === undefined) return ask.prompt;
  return `${ask.prompt}\n\nReply with ONLY one JSON object matching this JSON Schema:\n${JSON.stringify(ask.schema)}`;
}

/** The `reads` lines, or the path that is not set. */
function readLines(
  ctx: StepContext,
  reads: readonly string[],
): { ok: true; lines: string[] } | { ok: false; path: string } {
  const lines: string[] = [];
  for (const path of reads) {
    const hit = lookupPath(ctx.scope, path);
    if (!hit.found) return { ok: false, path };
    lines.push(`${path} = ${JSON.stringify(hit.value)}`);
  }
  return { ok: true, lines };
}

/** A turn that failed on its answer's shape (the worker's structured-answer errors, turn reference §12). */
function badAnswerError(end: StepTurnEnd): string | null {
  if (end.status !== 'failed' || end.error === undefined) return null;
  const shape = /^(answer does not match the output schema|the answer was not valid JSON)/;
  return shape.test(end.error) ? end.error : null;
}

type Judged = { ok: true; value: unknown } | { ok: false; miss: string } | { ok: false; fail: string };

/** Judges one completed reply: parsed, matched against the schema, then `check`. */
function judgeReply(ctx: StepContext, ask: ThinkAsk, end: StepTurnEnd): Judged {
  let value = end.value;
  if (value === undefined) {
    const parsed = parseTolerant(end.reply);
    if (!parsed.ok) return { ok: false, miss: parsed.error };
    value = parsed.value;
  }
  const problem = ask.schema === undefined ? null : schemaProblem(ask.schema, value);
  if (problem !== null) return { ok: false, miss: `output does not match output_schema: ${problem}` };
  if (ask.check === null) return { ok: true, value };
  const compiled = compileCel(ask.check);
  if (!compiled.ok) return { ok: false, fail: `check: ${compiled.error}` };
  const held = evalPredicate(compiled.program, { ...ctx.scope, output: value });
  if (!held.ok) return { ok: false, fail: `check: ${held.error}` };
  return held.value === true ? { ok: true, value } : { ok: false, miss: `check failed: ${compiled.program.source}` };
}

/**
 * Runs one think-shaped step: up to 1 + `retries` turns on one conversation per attempt, each keyed so a restarted
 * run finds the turns it already asked for. A later turn restates the request after saying what was wrong.
 */
export async function runThinkAsk(ctx: StepContext, ask: ThinkAsk): Promise<StepResult> {
  const kind = ctx.step.kind;
  const turn = ctx.ports.turn;
  if (!turn) return failed(`${kind}: no turns in this process`);
  const reads = readLines(ctx, ask.reads);
  if (!reads.ok) return failed(`${kind}: reads: path "${reads.path}" is not set`);
  const attempt = keyedAttempt(ctx);
  const first = askText(ask);
  const options = {
    kind: 'think' as const,
    ...(ask.system !== undefined ? { system: ask.system } : {}),
    ...(ask.skills !== undefined ? { skills: ask.skills } : {}),
    ...(reads.lines.length > 0 ? { context: reads.lines } : {}),
    ...(ask.schema !== undefined ? { output_schema: ask.schema } : {}),
  };
  let text = first;
  let miss = '';
  for (let n = 0; n <= ask.retries; n++) {
    const end = await turn({
      conversation: `wf-${ctx.run.id}-${ctx.step.id}-${attempt}`,
      text,
      principal: ctx.run.principal,
      key: `workflow:${pinnedKey(ctx)}#${attempt}${n === 0 ? '' : `.${n}`}`,
      signal: ctx.signal,
      spendLate: lateSpend(ctx),
      // The run's tokens left, as of this turn (earlier turns of the step are counted already).
      options: { ...options, ...turnTokenCap(ctx.run) },
    });
    await chargeTurn(ctx, end);
    const shape = badAnswerError(end);
    const judged: Judged =
      shape !== null
        ? { ok: false, miss: shape }
        : end.status === 'completed'
          ? judgeReply(ctx, ask, end)
          : { ok: false, fail: `turn ${end.status}${end.error ? `: ${end.error}` : ''}` };
    if (judged.ok) return done(judged.value);
    if ('fail' in judged)
      return { type: 'failed', error: judged.fail, ...(end.status === 'deadline' ? { timeout: true } : {}) };
    miss = judged.miss;
    text = `Your previous answer was rejected: ${miss}. Reply again with ONLY one JSON object.\n\n${first}`;
  }
  const turns = ask.retries + 1;
  return failed(`${kind}: no acceptable answer after ${turns} turn${turns === 1 ? '' : 's'}: ${miss}`);
}

/** `retries` as written, defaulted and clamped. */
export function retriesOf(raw: unknown): number {
  return typeof raw === 'number' && Number.isInteger(raw) ? Math.min(Math.max(raw, 0), MAX_RETRIES) : DEFAULT_RETRIES;
}

export const SKILLS_DOC =
  "Skill names (from `skills.sources`) loaded on the step's conversation before its turn; their bodies join the system prompt. One not in the catalogue is noted to the model (`skill.unknown: …`).";

/** `skills`: a non-empty list of names, or absent. */
export function skillsProblems(kind: string, raw: unknown): string[] {
  if (raw === undefined) return [];
  const ok = Array.isArray(raw) && raw.length > 0 && raw.every((n) => typeof n === 'string' && n !== '');
  return ok ? [] : [`${kind}.skills must be a non-empty list of skill names`];
}

/** Load problems of the fields every think-shaped kind may carry. */
export function thinkFieldProblems(kind: string, fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const reads = fields['reads'];
  if (reads !== undefined && !(Array.isArray(reads) && reads.every((r) => typeof r === 'string' && r !== '')))
    problems.push(`${kind}.reads must be a list of scope paths`);
  const retries = fields['retries'];
  if (
    retries !== undefined &&
    !(Number.isInteger(retries) && (retries as number) >= 0 && (retries as number) <= MAX_RETRIES)
  )
    problems.push(`${kind}.retries must be an integer from 0 to ${MAX_RETRIES}`);
  if (fields['check'] !== undefined && typeof fields['check'] !== 'string')
    problems.push(`${kind}.check must be a CEL string`);
  if (fields['system'] !== undefined && typeof fields['system'] !== 'string')
    problems.push(`${kind}.system must be a string`);
  problems.push(...skillsProblems(kind, fields['skills']));
  return problems;
}

/** The schema a think step's own `output_schema` names (checked at load), or none. */
export function ownSchema(ctx: StepContext): Record<string, unknown> | undefined {
  const schema = ctx.step.fields['output_schema'];
  return schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>) : undefined;
}

/** The step's `skills` as the ask carries them. */
export function skillsOf(ctx: StepContext): { skills?: string[] } {
  const skills = ctx.spec['skills'];
  return Array.isArray(skills) && skills.length > 0 ? { skills: skills.map(String) } : {};
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export const THINK_KIND: NodeKind = {
  name: 'think',
  category: 'intelligence',
  implemented: true,
  effect: true,
  doc: "A tool-less reasoning turn through the inbox (`wf-<run>-<step>-<attempt>`, acting as the run's principal; no preflight): system = `system`, else `You are the reasoning module of <instance>. Reply with ONLY one JSON object matching the schema | your conclusion. No tools are available.`; `reads` paths go first as system lines `<path> = <value>`; the user message is `prompt` plus the JSON-Schema demand. The answer is parsed as JSON (any JSON value without a schema) and must match `output_schema` (the worker re-asks twice within the turn) and `check`, a CEL predicate over `output` and the run's namespaces. `skills` are loaded on the step's conversation and their bodies follow the system prompt. A reply that still misses, or fails `check`, starts another turn on the same conversation saying why, up to `retries` more (default 1, at most 10); then the step fails `think: no acceptable answer after <n> turns: <why>`. Each turn's accept is keyed per attempt and turn, so a restarted run finds the turns it asked for. Output: the accepted JSON value.",
  fields: {
    prompt: { required: true, doc: 'What to reason about (templates).' },
    output_schema: { doc: 'JSON Schema the answer must match (asked for in the prompt and enforced).' },
    reads: { doc: 'Scope paths (`inputs.x`, `steps.a.output`) shown to the model as system lines `<path> = <value>`.' },
    check: { raw: true, doc: 'CEL predicate over `output` (and `inputs`, `steps`, `vars` …); false = a bad reply.' },
    retries: { doc: 'More turns after a bad reply (default 1, 0–10).' },
    skills: { doc: SKILLS_DOC },
    system: { doc: 'Replaces the reasoning-module system prompt.' },
  },
  check: (fields) => thinkFieldProblems('think', fields),
  run: (ctx) =>
    runThinkAsk(ctx, {
      prompt: text(ctx.spec['prompt']),
      schema: ownSchema(ctx),
      reads: (ctx.step.fields['reads'] as string[] | undefined) ?? [],
      check: typeof ctx.step.fields['check'] === 'string' ? ctx.step.fields['check'] : null,
      retries: retriesOf(ctx.spec['retries']),
      ...(typeof ctx.spec['system'] === 'string' ? { system: ctx.spec['system'] } : {}),
      ...skillsOf(ctx),
    }),
};
