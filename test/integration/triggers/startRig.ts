// A daemon runtime over a real SQLite file and a real A2A listener for start-node tests, and readers of its events.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Message, type SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import type { A2aProducer } from '../../../src/a2a/a2aProducer.js';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../../src/runtime/startRuntime.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import type { LazyWorkflows } from '../../../src/workflows/lazyWorkflows.js';
import { send } from '../../e2e/daemon.js';

export type Logged = Record<string, unknown>;

/** Starts the runtime on `yaml` in `dir` with `env` as compileConfig's environment. */
export async function daemon(
  dir: string,
  yaml: string,
  env: Record<string, string> = {},
  opts: Pick<RuntimeOptions, 'pressureProbe'> = {},
) {
  const file = join(dir, 'agentd.yaml');
  writeFileSync(file, yaml);
  const events: Logged[] = [];
  const flags = { intelligence: 'http://127.0.0.1:9', model: 'm' };
  const config = compileConfig({
    ...{ files: [file], env: { AGENTD_STATE_DIR: dir, ...env }, flags, cwd: dir },
    workflows: loadWorkflow,
  });
  const runtime: Runtime = await startRuntime(config, {
    log: createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) }),
    listen: 'http://127.0.0.1:0',
    warmWorkers: 0,
    ...opts,
  });
  const a2a = runtime.producers.find((p) => p.name === 'a2a') as A2aProducer;
  const workflows = runtime.producers.find((p) => p.name === 'workflows') as LazyWorkflows;
  return { runtime, url: a2a.url ?? '', events, workflows };
}

export const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

export const runsOf = (events: Logged[], workflow: string) =>
  events.filter((e) => e['event'] === 'run.start' && e['workflow'] === workflow);
export const doneOf = (events: Logged[], workflow: string) =>
  events.filter((e) => e['event'] === 'run.done' && String(e['run']).startsWith(`${workflow}-`));

/** A request whose message carries a command data part `{"agentd": {op, …args}}` and the given message id. */
export function commandRequest(
  op: string,
  args: Record<string, unknown>,
  messageId: string,
  returnImmediately = false,
): SendMessageRequest {
  const req = send('', {}, returnImmediately);
  const message: Message = { ...req.message, messageId, contextId: 'ops', parts: [] } as Message;
  message.parts.push({
    content: { $case: 'data', value: { agentd: { op, ...args } } },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  });
  return { ...req, message };
}

/** The task once it completed (a run's end reaches its task just after `run.done`), or as it is after ~5 s. */
export async function settledTask(
  client: { getTask(req: { tenant: string; id: string }): Promise<Task> },
  id: string,
): Promise<Task> {
  let task = await client.getTask({ tenant: '', id });
  for (let i = 0; i < 100 && task.status?.state !== TaskState.TASK_STATE_COMPLETED; i++) {
    await new Promise((r) => setTimeout(r, 50));
    task = await client.getTask({ tenant: '', id });
  }
  return task;
}
