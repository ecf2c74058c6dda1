// A person's answer to a task's open question (interfaces reference §1.8): refused by the question's schema, the
// gate stays open and asks again amended with why; taken, the task works again and a waiting turn gets the answer.
import type { TaskRecord } from '../domain/task.js';
import type { Logger } from '../obs/log.js';
import type { OpenQuestions } from '../runtime/openQuestions.js';
import { newUlid } from '../store/ulid.js';
import { answerProblem, reasked } from './answerCheck.js';
import type { TaskFeed } from './taskFeed.js';
import type { TaskRecords } from './taskRecords.js';
import { answeredQuestion, consumed, transition } from './tasks.js';

export interface AnswerDeps {
  records: TaskRecords;
  questions: OpenQuestions;
  log: Logger;
  now(): number;
  feed?: TaskFeed | undefined;
  /** Replicas: the answer was stored for a question no turn here waits on (another replica's turn may). */
  answeredElsewhere?: (conversation: string) => void;
}

/** Answers `task` (input_required, as stored now: the answer is written over it only) with `text`; what the store then holds. */
export async function answerTask(deps: AnswerDeps, task: TaskRecord, text: string, messageId?: string) {
  const why = answerProblem(task.question, text);
  if (why !== null) {
    deps.log.info('a2a.answer.rejected', { task: task.id, why });
    return deps.records.saveAnswer(consumed(reasked(task, why, deps.now(), newUlid), messageId), task);
  }
  const open = deps.questions.has(task.id);
  // Kept durably for a replayed ask (a turn after a restart, any run step): answeredQuestion says when.
  const question = answeredQuestion(task, text, open);
  const working = transition(task, 'working', deps.now(), { question, message: null }) ?? task;
  const stored = await deps.records.saveAnswer(consumed(working, messageId), task);
  deps.feed?.answer(stored, text);
  if (open) deps.questions.close(task.id, { result: { reply: text, timed_out: false }, is_error: false });
  else deps.answeredElsewhere?.(stored.conversation);
  return stored;
}
