// Structured answers (reference §12): the tolerant JSON parse and the accept / re-ask / fail decision.
// Pure: the round loop appends the messages this returns; the texts are stable markers test playbooks key on.
import { parseTolerant } from '../protocol/tolerantJson.js';
import { checkSchema } from './schemaCheck.js';

/** Re-asks after the first miss; the (1 + SCHEMA_REASKS)th miss fails the turn. */
export const SCHEMA_REASKS = 2;

export type AnswerDecision =
  | { kind: 'accept'; value: unknown }
  | { kind: 'reask'; reason: string; correction: string }
  | { kind: 'fail'; error: string };

/**
 * Decides what to do with a structured answer. `schema` undefined (think kind without a schema) accepts any
 * JSON value; `reasks` is how many re-asks this turn has already made.
 */
export function decideStructured(
  text: string,
  schema: Record<string, unknown> | undefined,
  reasks: number,
): AnswerDecision {
  const parsed = parseTolerant(text);
  if (!parsed.ok) {
    if (reasks >= SCHEMA_REASKS) return { kind: 'fail', error: parsed.error };
    return { kind: 'reask', reason: parsed.error, correction: `${parsed.error}. Reply with ONLY one JSON object.` };
  }
  const explain = schema ? checkSchema(parsed.value, schema) : null;
  if (explain === null) return { kind: 'accept', value: parsed.value };
  if (reasks >= SCHEMA_REASKS) return { kind: 'fail', error: `answer does not match the output schema: ${explain}` };
  return {
    kind: 'reask',
    reason: `schema: ${explain}`,
    correction:
      `Your answer did not match the required schema: ${explain}. ` +
      'Reply again with ONLY one JSON object that matches the schema.',
  };
}
