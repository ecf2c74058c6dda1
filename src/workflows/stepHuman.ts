// The `human` step's way to a person (producers reference §2.8 `human`, turn reference §13): the run gets an A2A
// task keyed by the step (its inbox_event is the step key, no inbox event behind it), and the task backend's
// ask_human machinery asks on it — input-required, in the feed, answered with `agentd answer`. The step then ends
// the task: completed with the answer, failed when nobody answered, canceled when the step ended early.
import { isTerminal, transition } from '../a2a/tasks.js';
import type { TaskRecord, TaskState } from '../domain/task.js';
import type { ProducerContext } from '../runtime/producer.js';
import { newUlid } from '../store/ulid.js';
import type { StepHumanAsk, StepPorts } from './nodeKind.js';
import { ENGINE_STOPPED } from './runEngine.js';

type Ctx = Pick<ProducerContext, 'store' | 'tasks' | 'clock'>;

const NOBODY_ANSWERED = 'nobody answered in time';

/** The run's task for this step: found by its key after a restart, else created `working`. */
async function taskFor(ctx: Ctx, req: StepHumanAsk): Promise<TaskRecord> {
  const found = await ctx.store.tasks.forEvent(req.key);
  if (found) return found;
  const now = ctx.clock();
  const conversation = req.conversation ?? `wf-${req.run}`;
  const task: TaskRecord = {
    id: newUlid(now),
    context_id: conversation,
    conversation,
    state: 'working',
    // A run that acts for nobody: only operators see and answer its question.
    principal: req.principal ?? `run:${req.run}`,
    inbox_event: req.key,
    message: null,
    result: null,
    question: null,
    history: [{ state: 'working', ts: now }],
    created: now,
    updated: now,
  };
  await ctx.store.tasks.save(task);
  return task;
}

async function endTask(ctx: Ctx, id: string, state: TaskState, message: string): Promise<void> {
  const task = await ctx.store.tasks.get(id);
  const ended =
    task &&
    transition(task, state, ctx.clock(), {
      message,
      question: null,
      ...(state === 'completed' ? { result: message } : {}),
    });
  if (!ended) return;
  await ctx.store.tasks.save(ended);
  ctx.tasks.afterFold(ended);
}

/** The port the workflow desk's `human` kind calls. */
export function askPersons(ctx: Ctx): NonNullable<StepPorts['askPerson']> {
  return async (req) => {
    if (!ctx.tasks.humanChannel) return { ok: false, error: 'human: no person is reachable (a2a.listen is not set)' };
    const task = await taskFor(ctx, req);
    if (isTerminal(task.state)) return { ok: false, error: `human: the question's task ${task.id} is ${task.state}` };
    const onAbort = (): void => {
      const reason: unknown = req.signal.reason;
      if (reason === ENGINE_STOPPED) return;
      if (reason instanceof Error && reason.name === 'TimeoutError')
        void endTask(ctx, task.id, 'failed', NOBODY_ANSWERED);
      else void endTask(ctx, task.id, 'canceled', 'the workflow step ended');
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const ask = { eventId: req.key, question: req.question, timeoutAt: task.created + req.timeoutMs };
      const got = await ctx.tasks.askHuman(req.schema ? { ...ask, schema: req.schema } : ask);
      if (got.is_error) return { ok: false, error: String(got.result) };
      const answer = got.result as { reply: unknown; timed_out: boolean };
      if (req.signal.aborted) return { ok: false, error: 'cancelled' };
      if (answer.timed_out || answer.reply === null) {
        await endTask(ctx, task.id, 'failed', NOBODY_ANSWERED);
        return { ok: true, reply: null, task: task.id };
      }
      await endTask(ctx, task.id, 'completed', String(answer.reply));
      return { ok: true, reply: String(answer.reply), task: task.id };
    } finally {
      req.signal.removeEventListener('abort', onAbort);
    }
  };
}
