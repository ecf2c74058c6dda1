// A person's answer checked against the schema of the question it answers (interfaces reference §1.8, "Approvals
// and questions"): a mismatch keeps the gate open and asks again with the question amended by why. Pure: no store,
// no clock; the task backend logs `a2a.answer.rejected` and saves the re-asked task.
import type { TaskRecord } from '../domain/task.js';
import { schemaProblem } from '../workflows/jsonSchema.js';
import { transition } from './tasks.js';

export type AnswerCheck = { ok: true; value: unknown } | { ok: false; why: string };

const YES = /^(y|yes)$/i;
const NO = /^(n|no)$/i;
const REJECTED = /\s*\(previous answer rejected: [\s\S]*\)$/;

/**
 * The value `text` gives the question's `schema`: the JSON it holds, else the text as typed (yes/no count as
 * true/false for a boolean); a one-property object may be answered by that property's value alone (what the TUI and
 * web UI send for a choice), and then the value is that bare answer. Text that is a JSON object or array is the
 * whole answer: it is refused with its own first error (naming the property), never retried as bare text. A schema
 * that does not compile refuses nothing: the person cannot fix it.
 */
export function checkAnswer(schema: unknown, text: string): AnswerCheck {
  if (schema === null || typeof schema !== 'object') return { ok: true, value: text };
  const candidates = candidatesOf(schema as Record<string, unknown>, text);
  let first: string | null = null;
  for (const value of candidates) {
    const problem = schemaProblem(schema, value);
    if (problem === null) return { ok: true, value };
    if (problem.startsWith('invalid schema:')) return { ok: true, value: text };
    first ??= problem;
  }
  const only = soleProperty(schema as Record<string, unknown>);
  if (only !== null && !isStructured(text)) return checkAnswer(only, text);
  return { ok: false, why: first ?? 'invalid value' };
}

function candidatesOf(schema: Record<string, unknown>, text: string): unknown[] {
  const values: unknown[] = [];
  try {
    values.push(JSON.parse(text));
  } catch {
    // Not JSON: the text as typed.
  }
  values.push(text);
  if (schema['type'] === 'boolean' && YES.test(text.trim())) values.push(true);
  if (schema['type'] === 'boolean' && NO.test(text.trim())) values.push(false);
  return values;
}

/** Whether `text` parses as a JSON object or array (a whole answer, not a bare value). */
function isStructured(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null;
  } catch {
    return false;
  }
}

/** The schema of an object's only property, else null. */
function soleProperty(schema: Record<string, unknown>): unknown {
  const props = schema['properties'];
  if (schema['type'] !== 'object' || typeof props !== 'object' || props === null) return null;
  const values = Object.values(props);
  return values.length === 1 ? values[0] : null;
}

/** Why the task's open question refuses `text`, or null when it takes it (no question, or no schema). */
export function answerProblem(question: TaskRecord['question'], text: string): string | null {
  if (!question?.schema) return null;
  const check = checkAnswer(question.schema, text);
  return check.ok ? null : check.why;
}

/** The question as first asked: its text without the "(previous answer rejected: …)" a refusal added. */
export function baseQuestion(text: string): string {
  return text.replace(REJECTED, '');
}

/**
 * The answer a person gave, while nobody was waiting, to the question a replayed turn asks again; else undefined.
 * A refusal amended the stored text meanwhile, so the texts compare without that amendment.
 */
export function earlyAnswer(question: TaskRecord['question'], asked: string): string | undefined {
  return question?.answer !== undefined && baseQuestion(question.text) === asked ? question.answer : undefined;
}

/** The task asking again under a new question id (`newId(now)`), amended with why the last answer was refused. */
export function reasked(task: TaskRecord, why: string, now: number, newId: (now: number) => string): TaskRecord {
  const id = newId(now);
  const base = baseQuestion(task.question?.text ?? '');
  const text = `${base} (previous answer rejected: ${why})`;
  const schema = task.question?.schema;
  const question = { id, text, ...(schema ? { schema } : {}), rejected: why };
  return transition(task, 'input_required', now, { question, message: text }) ?? task;
}
