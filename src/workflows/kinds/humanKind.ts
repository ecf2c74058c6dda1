// The `human` kind (producers reference §2.8 `human`, turn reference §13): asks a person through the same A2A
// question machinery as ask_human — a task of the run goes input_required, visible in the feed and answered with
// `agentd answer <task> TEXT` — and the answer becomes the step output. The task is keyed by the step, so a restart
// asks on the same task and an answer given meanwhile is handed over.

import { checkAnswer } from '../../a2a/answerCheck.js';
import { parseWorkflowDuration } from '../durations.js';
import { schemaCompileProblem } from '../jsonSchema.js';
import {
  done,
  failed,
  keyedAttempt,
  type NodeKind,
  pinnedKey,
  type StepContext,
  type StepResult,
} from '../nodeKind.js';
import { privateAddressOf } from '../privateAddress.js';

/** ask_human's default (turn reference §13). */
export const HUMAN_DEFAULT_TIMEOUT_MS = 24 * 3_600_000;
const deferred = (v: unknown): boolean => typeof v === 'string' && (v.includes('{{') || v.startsWith('CEL:'));

function urlProblem(v: unknown): string | null {
  if (deferred(v)) return null;
  try {
    const url = new URL(String(v));
    return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'human.reply_uri must be an http(s) URL';
  } catch {
    return 'human.reply_uri must be an http(s) URL';
  }
}

/**
 * The refusal of the rendered `reply_uri` (a template can aim it anywhere): not http(s), or a host that is or
 * resolves to a private address when the step did not set `allow_private` — the guard an `http` step has.
 */
async function replyUriRefusal(ctx: StepContext, uri: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'human: reply_uri must be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'human: reply_uri must be an http(s) URL';
  if (ctx.spec['allow_private'] === true) return null;
  const hit = await privateAddressOf(url, ctx.ports.lookup);
  return hit === null
    ? null
    : `human: reply_uri: ${url.host} resolves to a private address (${hit}); set allow_private`;
}

function check(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  if (fields['to'] !== undefined && (typeof fields['to'] !== 'string' || fields['to'].trim() === ''))
    problems.push('human.to must be a principal id (a2a.principals)');
  const uri = fields['reply_uri'] === undefined ? null : urlProblem(fields['reply_uri']);
  if (uri !== null) problems.push(uri);
  if (typeof fields['question'] !== 'string' || fields['question'].trim() === '')
    problems.push('human.question must be a non-empty string');
  const schema = fields['schema'];
  if (schema !== undefined) {
    const problem = schemaCompileProblem(schema);
    if (problem !== null) problems.push(`human.schema: ${problem}`);
  }
  if (fields['allow_private'] !== undefined && typeof fields['allow_private'] !== 'boolean')
    problems.push('human.allow_private must be true or false');
  return problems;
}

/** The reply as the step output: the text, or with `schema` the value it gives the schema (answerCheck.ts), checked. */
function answerOf(reply: string, schema: unknown): StepResult {
  const check = checkAnswer(schema, reply);
  return check.ok ? done(check.value) : failed(`human: the answer does not match schema: ${check.why}`);
}

async function ask(ctx: StepContext): Promise<StepResult> {
  const port = ctx.ports.askPerson;
  if (!port) return failed('human: nobody can be asked in this process');
  const timeout =
    ctx.spec['timeout'] === undefined
      ? { ok: true as const, ms: HUMAN_DEFAULT_TIMEOUT_MS }
      : parseWorkflowDuration(ctx.spec['timeout']);
  if (!timeout.ok) return failed(`human: timeout: ${timeout.error}`);
  const replyUri = ctx.spec['reply_uri'];
  if (replyUri !== undefined) {
    const refused = await replyUriRefusal(ctx, String(replyUri));
    if (refused !== null) return failed(refused);
  }
  const end = await port({
    key: `workflow:${pinnedKey(ctx)}#${keyedAttempt(ctx)}`,
    run: ctx.run.id,
    principal: ctx.run.principal,
    conversation: ctx.run.conversation,
    question: String(ctx.spec['question']),
    ...(ctx.spec['schema'] !== undefined ? { schema: ctx.spec['schema'] as Record<string, unknown> } : {}),
    timeoutMs: timeout.ms,
    signal: ctx.signal,
    ...(typeof ctx.spec['to'] === 'string' ? { to: ctx.spec['to'] } : {}),
    ...(typeof ctx.spec['reply_uri'] === 'string' ? { replyUri: ctx.spec['reply_uri'] } : {}),
  });
  if (!end.ok) return failed(end.error);
  if (end.reply === null) return { type: 'failed', error: 'human: nobody answered in time', timeout: true };
  return answerOf(end.reply, ctx.spec['schema']);
}

export const HUMAN_KIND: NodeKind = {
  name: 'human',
  category: 'intelligence',
  implemented: true,
  effect: true,
  doc: 'Asks a person, as `ask_human` does: a task of the run (principal: the run\'s, else only operators) goes `input-required` with `question`, in the feed and `agentd tasks`; `agentd answer <task> TEXT` (or an A2A message on that task) answers it and the reply is the step output — the text, or with `schema` the value it gives the schema (the JSON it holds, else the text; a one-property object may be answered by the value alone, which is then the output); an answer the schema refuses is not taken, and the question is asked again amended with `(previous answer rejected: …)`. No answer within `timeout` (24 h, counted from the first ask, across restarts) ⇒ status `timeout` and the task `failed` (`nobody answered in time`); a cancel or the run\'s end cancels the task. The task is keyed by the step: after a restart the step asks on the same task, and an answer given meanwhile is taken. Needs an A2A listener (`human: no person is reachable (a2a.listen is not set)`). `to` addresses the question to one configured principal (`a2a.principals[].id`): the task is theirs, so only they (and operators) see and answer it; a literal unknown id is refused at load, one a template renders fails the step `human: to "<id>" is not in a2a.principals`. `reply_uri` is told over HTTP, like an A2A push notification: a POST of `{task, context, run, state, question, to}` when the question is asked (`state: input-required`, again after a restart) and of `{task, context, run, state, answer?}` when it ends (`completed`, `failed`, `canceled`), each with the header `Idempotency-Key: <task>/<state>`; a refused first POST fails the step `human: reply_uri: <reason>` and cancels the task; a refused end POST is logged (`human.notify.fail`). The rendered URL must be http(s) and, unless `allow_private: true`, its host must not be or resolve to a private address (`human: reply_uri: <host> resolves to a private address (<ip>); set allow_private`), as for an `http` step.',
  fields: {
    question: { required: true, doc: 'What the person is asked (templates).' },
    schema: { doc: 'JSON Schema the answer (parsed as JSON) must match.' },
    timeout: { doc: 'How long to wait for an answer (24 h); counted from the first ask, across restarts.' },
    to: { doc: "A principal id (`a2a.principals`): the question is theirs to answer (and operators')." },
    reply_uri: { doc: 'An http(s) URL POSTed the question and its end (push notification).' },
    allow_private: { doc: '`true`: `reply_uri` may reach a private or loopback address.' },
  },
  check,
  run: ask,
};
