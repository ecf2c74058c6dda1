// The `human` step's way to a person (producers reference §2.8 `human`, turn reference §13): the run gets an A2A
// task keyed by the step (its inbox_event is the step key, no inbox event behind it), and the task backend's
// ask_human machinery asks on it — input-required, in the feed, answered with `agentd answer`. The step then ends
// the task: completed with the answer, failed when nobody answered, canceled when the step ended early or its ask
// failed. The backend saves every change (TaskHooks.openStepTask/endStepTask); this file writes no store.
import { isTerminal } from '../a2a/tasks.js';
import type { TaskRecord } from '../domain/task.js';
import { STOPPING } from '../runtime/openQuestions.js';
import type { ProducerContext } from '../runtime/producer.js';
import type { StepHumanAsk, StepHumanEnd, StepPorts } from './nodeKind.js';
import { ENGINE_STOPPED } from './runEngine.js';

type Ctx = Pick<ProducerContext, 'tasks' | 'killPoint'>;

const NOBODY_ANSWERED = 'nobody answered in time';
const NOBODY_REACHABLE = 'human: no person is reachable (a2a.listen is not set)';

/** The run's task for this step, through the task backend: found by its key after a restart, else created. */
function taskFor(ctx: Ctx, req: StepHumanAsk) {
  const conversation = req.conversation ?? `wf-${req.run}`;
  // A run that acts for nobody: only operators see and answer its question.
  const principal = req.principal ?? `run:${req.run}`;
  return ctx.tasks.openStepTask({ key: req.key, run: req.run, principal, conversation });
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
    const task = ctx.tasks.humanChannel ? await taskFor(ctx, req) : null;
    if (!task) return { ok: false, error: NOBODY_REACHABLE };
    if (isTerminal(task.state)) return endedAnswer(task);
    const onAbort = (): void => {
      const reason: unknown = req.signal.reason;
      if (reason === ENGINE_STOPPED) return;
      if (reason instanceof Error && reason.name === 'TimeoutError')
        void ctx.tasks.endStepTask(task.id, 'failed', NOBODY_ANSWERED);
      else void ctx.tasks.endStepTask(task.id, 'canceled', 'the workflow step ended');
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const ask = { eventId: req.key, question: req.question, timeoutAt: task.created + req.timeoutMs };
      const got = await ctx.tasks.askHuman(req.schema ? { ...ask, schema: req.schema } : ask);
      if (got.is_error) {
        // The agent stopping leaves the task asking: the next life asks on it again. Any other error ends it.
        if (got.result !== STOPPING.result) await ctx.tasks.endStepTask(task.id, 'canceled', String(got.result));
        return { ok: false, error: String(got.result) };
      }
      const answer = got.result as { reply: unknown; timed_out: boolean };
      // Test-only: the answer is on the task (durably, see continueTask), its end and the step's are not.
      ctx.killPoint?.('human.answered');
      if (req.signal.aborted) return { ok: false, error: 'cancelled' };
      if (answer.timed_out || answer.reply === null) {
        await ctx.tasks.endStepTask(task.id, 'failed', NOBODY_ANSWERED);
        return { ok: true, reply: null, task: task.id };
      }
      await ctx.tasks.endStepTask(task.id, 'completed', String(answer.reply));
      return { ok: true, reply: String(answer.reply), task: task.id };
    } finally {
      req.signal.removeEventListener('abort', onAbort);
    }
  };
}
