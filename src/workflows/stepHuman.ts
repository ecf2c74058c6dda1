// The `human` step's way to a person (producers reference §2.8 `human`, turn reference §13): the run gets an A2A
// task keyed by the step (its inbox_event is the step key, no inbox event behind it), and the task backend's
// ask_human machinery asks on it — input-required, in the feed, answered with `agentd answer`. The step then ends
// the task: completed with the answer, failed when nobody answered, canceled when the step ended early or its ask
// failed. The backend saves every change (TaskHooks.openStepTask/endStepTask); this file writes no store.
import { principalId } from '../a2a/principals.js';
import { isTerminal } from '../a2a/tasks.js';
import type { TaskRecord, TaskState } from '../domain/task.js';
import { STOPPING } from '../runtime/openQuestions.js';
import type { ProducerContext } from '../runtime/producer.js';
import { notifyReplyUri } from './humanNotify.js';
import type { StepHumanAsk, StepHumanEnd, StepPorts } from './nodeKind.js';
import { ENGINE_STOPPED } from './runEngine.js';

type Ctx = Pick<ProducerContext, 'tasks' | 'killPoint'> & Partial<Pick<ProducerContext, 'config' | 'log'>>;

const NOBODY_ANSWERED = 'nobody answered in time';
const NOBODY_REACHABLE = 'human: no person is reachable (a2a.listen is not set)';

/** The run's task for this step, through the task backend: found by its key after a restart, else created. */
function taskFor(ctx: Ctx, req: StepHumanAsk, principal: string) {
  const conversation = req.conversation ?? `wf-${req.run}`;
  return ctx.tasks.openStepTask({ key: req.key, run: req.run, principal, conversation });
}

/**
 * Whose question it is: `to`'s principal, else the run's; a run that acts for nobody is answered by operators only.
 * An error text when `to` names no configured principal.
 */
function askedPrincipal(ctx: Ctx, req: StepHumanAsk): { ok: true; principal: string } | { ok: false; error: string } {
  if (req.to === undefined) return { ok: true, principal: req.principal ?? `run:${req.run}` };
  const entry = ctx.config?.a2a.principals.find((p) => p.id === req.to);
  return entry
    ? { ok: true, principal: principalId(entry) }
    : { ok: false, error: `human: to "${req.to}" is not in a2a.principals` };
}

/** Tells `reply_uri` of the task's end (a refused notice is logged: the end itself stands). */
async function tellEnd(
  ctx: Ctx,
  req: StepHumanAsk,
  task: TaskRecord,
  state: TaskState,
  message: string,
  answer?: string,
) {
  if (req.replyUri === undefined) return;
  const body = { run: req.run, state, ...(answer !== undefined ? { answer } : { message }) };
  const refused = await notifyReplyUri(req.replyUri, task, body);
  if (refused !== null) ctx.log?.warn('human.notify.fail', { run: req.run, task: task.id, state, error: refused });
}

/** Ends the step's task and tells `reply_uri`. */
function taskEnder(ctx: Ctx, req: StepHumanAsk, task: TaskRecord) {
  return async (state: TaskState, message: string, answer?: string): Promise<void> => {
    await ctx.tasks.endStepTask(task.id, state, message);
    await tellEnd(ctx, req, task, state, message, answer);
  };
}

/**
 * A step replayed after its task ended (the end is saved before the step's, so a crash between them leaves this):
 * the answer the task holds, or nobody answered; any other end is an error.
 */
function endedAnswer(task: TaskRecord): StepHumanEnd {
  if (task.state === 'completed' && task.result !== null) return { ok: true, reply: task.result, task: task.id };
  if (task.state === 'failed' && task.message === NOBODY_ANSWERED) return { ok: true, reply: null, task: task.id };
  return { ok: false, error: `human: the question's task ${task.id} is ${task.state}` };
}

/** The port the workflow desk's `human` kind calls. */
export function askPersons(ctx: Ctx): NonNullable<StepPorts['askPerson']> {
  return async (req) => {
    const whose = askedPrincipal(ctx, req);
    if (!whose.ok) return whose;
    const task = ctx.tasks.humanChannel ? await taskFor(ctx, req, whose.principal) : null;
    if (!task) return { ok: false, error: NOBODY_REACHABLE };
    if (isTerminal(task.state)) {
      // The end is saved before its notice is sent: a crash between them lost the notice, so a replay sends it
      // again (the same Idempotency-Key <task>/<state>: a receiver that had it sees a duplicate, not a new end).
      const answer = task.state === 'completed' ? (task.result ?? undefined) : undefined;
      await tellEnd(ctx, req, task, task.state, task.message ?? task.state, answer);
      return endedAnswer(task);
    }
    const end = taskEnder(ctx, req, task);
    if (req.replyUri !== undefined) {
      const notice = { run: req.run, state: 'input-required', question: req.question, to: req.to ?? null };
      const refused = await notifyReplyUri(req.replyUri, task, notice, req.signal);
      if (refused !== null) {
        await ctx.tasks.endStepTask(task.id, 'canceled', `reply_uri refused the question: ${refused}`);
        return { ok: false, error: `human: reply_uri: ${refused}` };
      }
    }
    const onAbort = (): void => {
      const reason: unknown = req.signal.reason;
      if (reason === ENGINE_STOPPED) return;
      if (reason instanceof Error && reason.name === 'TimeoutError') void end('failed', NOBODY_ANSWERED);
      else void end('canceled', 'the workflow step ended');
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const ask = { eventId: req.key, question: req.question, timeoutAt: task.created + req.timeoutMs };
      const got = await ctx.tasks.askHuman(req.schema ? { ...ask, schema: req.schema } : ask);
      if (got.is_error) {
        // The agent stopping leaves the task asking: the next life asks on it again. Any other error ends it.
        if (got.result !== STOPPING.result) await end('canceled', String(got.result));
        return { ok: false, error: String(got.result) };
      }
      const answer = got.result as { reply: unknown; timed_out: boolean };
      // Test-only: the answer is on the task (durably, see continueTask), its end and the step's are not.
      ctx.killPoint?.('human.answered');
      if (req.signal.aborted) return { ok: false, error: 'cancelled' };
      if (answer.timed_out || answer.reply === null) {
        await end('failed', NOBODY_ANSWERED);
        return { ok: true, reply: null, task: task.id };
      }
      await end('completed', String(answer.reply), String(answer.reply));
      return { ok: true, reply: String(answer.reply), task: task.id };
    } finally {
      req.signal.removeEventListener('abort', onAbort);
    }
  };
}
