// A workflow desk over a real SQLite store in a temporary directory, with its events captured: the engine's
// integration tests open, stop and reopen it on the same directory to stand for a daemon's lives.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { createLogger } from '../../../src/obs/log.js';
import { SqliteStore } from '../../../src/store/sqliteStore.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import type { McpCaller, StepPorts } from '../../../src/workflows/nodeKind.js';
import { WorkflowDesk } from '../../../src/workflows/workflowDesk.js';

export interface Logged {
  event: string;
  [field: string]: unknown;
}

export interface DeskLife {
  desk: WorkflowDesk;
  store: SqliteStore;
  events: Logged[];
  ended: Readonly<WorkflowRun>[];
  close(): Promise<void>;
}

export function tempStoreDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentd-wf-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Loads documents, failing the test on a validation error. */
export function defs(...docs: unknown[]) {
  return docs.map((doc) => {
    const loaded = loadWorkflow(doc);
    if (!loaded.ok) throw new Error(loaded.errors.join('; '));
    return loaded.def;
  });
}

/** Opens one life of the desk on `dir` (restoring what the last life left), fetch stubbed unless given. */
export async function openDesk(
  dir: string,
  docs: unknown[],
  opts: {
    fetch?: typeof fetch;
    mcp?: McpCaller;
    knowledge?: StepPorts['knowledge'];
    ports?: Partial<StepPorts>;
    fanOut?: number;
    /** Leave the desk unopened (the caller opens it: a message sent while it restores). */
    deferOpen?: boolean;
  } = {},
): Promise<DeskLife> {
  const store = new SqliteStore(dir);
  const events: Logged[] = [];
  const ended: Readonly<WorkflowRun>[] = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line) as Logged) });
  const desk = new WorkflowDesk({
    store,
    log,
    clock: () => Date.now(),
    ports: {
      memory: store.memory,
      fetch: opts.fetch ?? fetch,
      lookup: async () => ['127.0.0.1'],
      ...(opts.mcp ? { mcp: opts.mcp } : {}),
      ...(opts.knowledge ? { knowledge: opts.knowledge } : {}),
      ...opts.ports,
      ...(opts.fanOut ? { fanOut: opts.fanOut } : {}),
    },
    configured: defs(...docs),
    onRunEnded: (run) => ended.push(run),
  });
  if (!opts.deferOpen) await desk.open();
  return {
    desk,
    store,
    events,
    ended,
    close: async () => {
      await desk.stop();
      await store.close();
    },
  };
}

/** Resolves with the run once it ended (waiting at most `ms`), failing loudly otherwise. */
export async function settled(life: DeskLife, runId: string, ms = 5_000): Promise<Readonly<WorkflowRun>> {
  const run = await life.desk.wait(runId, ms);
  if (run === null || life.desk.engine.get(runId)) throw new Error(`run ${runId} did not end within ${ms} ms`);
  return run;
}

export const named = (events: readonly Logged[], name: string): Logged[] => events.filter((e) => e.event === name);

/** A workflow `w`: `s (manual) → x (the step) → f (finish with x's output)`, plus `extra` steps. */
export function around(step: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'w',
    steps: {
      s: { kind: 'manual' },
      x: { depends_on: 's', ...step },
      f: { kind: 'finish', depends_on: 'x', output: '{{steps.x.output}}' },
      ...extra,
    },
  };
}

/** Starts workflow `workflow` (no inputs, no principal) under `key` and resolves with the run once it ended. */
export async function runToEnd(life: DeskLife, workflow = 'w', key = 'k', ms = 10_000): Promise<Readonly<WorkflowRun>> {
  const got = await life.desk.start({ workflow, inputs: {}, startKey: key, principal: null, conversation: null });
  if (!got.ok) throw new Error(got.error);
  return settled(life, got.run.id, ms);
}

/** A child workflow that waits far longer than any test. */
export const SLOW = {
  name: 'slow',
  steps: {
    s: { kind: 'manual' },
    w: { kind: 'wait', depends_on: 's', on: 'deadline', timeout: '60s' },
    f: { kind: 'finish', depends_on: 'w' },
  },
};
