// What resolves a `wait` step that waits outside its run (producers reference §2.8): another run's end or a
// subagent's. The engine re-arms a watch for every such wait after a restart, so the wait itself is durable.
import { type StepWait, TERMINAL_RUN, type WorkflowRun } from '../domain/workflow.js';
import { resourceContent } from './kinds/mcpResourceKind.js';
import { done, failed, type StepPorts, type StepResult } from './nodeKind.js';
import { type DeliverySources, watchCondition, watchWebhook } from './waitDeliveries.js';

export interface WaitSources extends DeliverySources {
  /** Run `id` once it is terminal (at once if it is), null when there is no such run or `signal` aborts first. */
  runEnded(id: string, signal: AbortSignal): Promise<Readonly<WorkflowRun> | null>;
  /** Whether run `id` exists (live or stored). */
  runKnown(id: string): Promise<boolean>;
  awaitSubagent?: StepPorts['awaitSubagent'];
  resources?: StepPorts['resources'];
}

const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** Subscribes to the resource and resolves with its content at its next update (null once `signal` aborts). */
async function watchResource(
  sources: WaitSources,
  server: string,
  uri: string,
  signal: AbortSignal,
): Promise<StepResult | null> {
  if (!sources.resources) return failed('wait resource: no MCP servers in this process');
  const resources = await sources.resources(server);
  let updated: () => void = () => {};
  const next = new Promise<void>((resolve) => {
    updated = resolve;
  });
  const off = await resources.subscribe(uri, () => updated(), SUBSCRIBE_TIMEOUT_MS);
  const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    await Promise.race([next, aborted]);
    if (signal.aborted) return null;
    const text = await resources.read(uri, SUBSCRIBE_TIMEOUT_MS);
    return done({ uri, server, content: resourceContent(text) });
  } finally {
    off();
  }
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

/** One join handle's end: a run's, a subagent's, or `unknown handle`; null once `signal` aborts. */
async function handleEnd(
  sources: WaitSources,
  run: Readonly<WorkflowRun>,
  handle: string,
  signal: AbortSignal,
): Promise<Record<string, unknown> | null> {
  if (await sources.runKnown(handle)) {
    const ended = await sources.runEnded(handle, signal);
    if (ended === null) return null;
    return { kind: 'run', status: ended.status, output: ended.output ?? null, error: ended.error };
  }
  if (!sources.awaitSubagent) return { error: 'unknown handle' };
  const end = await sources.awaitSubagent({ handle, principal: run.principal, conversation: run.conversation, signal });
  if (signal.aborted) return null;
  if (!end.ok) return { error: /no such|unknown/i.test(end.error) ? 'unknown handle' : end.error };
  const { status, result, error } = end.answer;
  return { kind: 'subagent', status, result: result ?? null, error: error ?? null };
}

/** A `join` step's end (reference §2.8): `min` handles ended, or its time passed (partials or a timeout). */
function watchJoin(
  sources: WaitSources,
  run: Readonly<WorkflowRun>,
  join: NonNullable<StepWait['join']>,
  signal: AbortSignal,
): Promise<StepResult | null> {
  return new Promise((resolve) => {
    const results: Record<string, unknown> = {};
    const stop = new AbortController();
    const inner = AbortSignal.any([signal, stop.signal]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (result: StepResult | null): void => {
      clearTimeout(timer);
      stop.abort();
      resolve(result);
    };
    signal.addEventListener('abort', () => finish(null), { once: true });
    if (join.untilMs !== null)
      timer = setTimeout(
        () =>
          finish(
            join.partials
              ? done({ partial: true, results: { ...results } })
              : { type: 'failed', error: 'join timed out', timeout: true },
          ),
        Math.max(0, join.untilMs - Date.now()),
      );
    for (const handle of join.handles)
      void handleEnd(sources, run, handle, inner).then((end) => {
        if (end === null || inner.aborted) return;
        results[handle] = end;
        if (Object.keys(results).length >= join.min) finish(done({ ...results }));
      });
  });
}

/** Resolves with the result of a watched wait (`run|subagent|resource|condition|webhook`, `join`), or null once `signal` aborts. */
export function watchWait(
  sources: WaitSources,
  run: Readonly<WorkflowRun>,
  wait: StepWait,
  signal: AbortSignal,
): Promise<StepResult | null> {
  if (wait.kind === 'run' && wait.run !== undefined) return watchRun(sources, wait.run, signal);
  if (wait.kind === 'subagent' && wait.handle !== undefined) return watchSubagent(sources, run, wait.handle, signal);
  if (wait.kind === 'resource' && wait.server !== undefined && wait.uri !== undefined)
    return watchResource(sources, wait.server, wait.uri, signal);
  if (wait.kind === 'join' && wait.join !== undefined) return watchJoin(sources, run, wait.join, signal);
  if (wait.kind === 'condition' && wait.condition !== undefined)
    return watchCondition(sources, run, wait.condition, signal);
  if (wait.kind === 'webhook') return watchWebhook(sources, run, wait, signal);
  return Promise.resolve(failed(`wait ${wait.kind}: nothing to watch`));
}
