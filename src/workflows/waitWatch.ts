// What resolves a `wait` step that waits outside its run (producers reference §2.8): another run's end or a
// subagent's. The engine re-arms a watch for every such wait after a restart, so the wait itself is durable.
import { type StepWait, TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { done, failed, type StepPorts, type StepResult } from './nodeKind.js';

export interface WaitSources {
  /** Run `id` once it is terminal (at once if it is), null when there is no such run or `signal` aborts first. */
  runEnded(id: string, signal: AbortSignal): Promise<Readonly<WorkflowRun> | null>;
  /** Whether run `id` exists (live or stored). */
  runKnown(id: string): Promise<boolean>;
  awaitSubagent?: StepPorts['awaitSubagent'];
}

async function watchRun(sources: WaitSources, id: string, signal: AbortSignal): Promise<StepResult | null> {
  if (!(await sources.runKnown(id))) return failed(`wait run: no such run "${id}"`);
  const run = await sources.runEnded(id, signal);
  if (run === null || !TERMINAL_RUN.has(run.status)) return null;
  return done({ run: run.id, status: run.status, output: run.output ?? null, error: run.error });
}

async function watchSubagent(
  sources: WaitSources,
  run: Readonly<WorkflowRun>,
  handle: string,
  signal: AbortSignal,
): Promise<StepResult | null> {
  if (!sources.awaitSubagent) return failed('wait subagent: no subagents in this process');
  const end = await sources.awaitSubagent({ handle, principal: run.principal, conversation: run.conversation, signal });
  if (signal.aborted) return null;
  if (!end.ok) return failed(end.error);
  const { status, error } = end.answer;
  if (status === 'completed') return done(end.answer);
  return failed(`subagent ${handle} ${status}${error ? `: ${String(error)}` : ''}`);
}

/** Resolves with the result of a `wait on: run|subagent` step, or null once `signal` aborts. */
export function watchWait(
  sources: WaitSources,
  run: Readonly<WorkflowRun>,
  wait: StepWait,
  signal: AbortSignal,
): Promise<StepResult | null> {
  if (wait.kind === 'run' && wait.run !== undefined) return watchRun(sources, wait.run, signal);
  if (wait.kind === 'subagent' && wait.handle !== undefined) return watchSubagent(sources, run, wait.handle, signal);
  return Promise.resolve(failed(`wait ${wait.kind}: nothing to watch`));
}
