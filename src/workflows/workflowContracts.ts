// The contracts of workflow.* (producers reference §2.12): names, schemas, suspension. Part of the internal
// contract table (tools/internalContracts.ts); the bodies are workflowTools.ts.
import type { InternalContract } from '../tools/internalContracts.js';
import { closed, open } from '../tools/schemaShapes.js';

const NAME = { type: 'string', minLength: 1, description: 'The workflow name.' };
const RUN = { type: 'string', minLength: 1, description: 'A run id from workflow.run ("<workflow>-<ULID>").' };
const TIMEOUT = { type: ['string', 'number'], description: 'A duration ("30s", "5m") or seconds; default 1h.' };
const RUN_ANSWER = open(
  { run: { type: 'string' }, status: { type: 'string' }, output: {}, error: {}, timed_out: { type: 'boolean' } },
  ['run', 'status'],
);
const DEFINED = open({ name: { type: 'string' }, hash: { type: 'string' }, armed: { type: 'boolean' } }, [
  'name',
  'hash',
]);

export const WORKFLOW_CONTRACTS: InternalContract[] = [
  {
    name: 'workflow.run',
    family: 'workflow',
    description:
      'Start a run of a workflow: {run, status: "running", workflow}; with wait, the run\'s {run, status, output, error}.',
    input_schema: closed(
      {
        name: NAME,
        inputs: { type: 'object' },
        start: { type: 'string', description: 'A start node id.' },
        wait: { type: 'boolean' },
        timeout: TIMEOUT,
      },
      ['name'],
    ),
    output_schema: RUN_ANSWER,
    suspends: true,
  },
  {
    name: 'workflow.status',
    family: 'workflow',
    description: 'Runs by id (with step states and vars) or by workflow name (summaries).',
    input_schema: closed({ run: RUN, name: NAME }),
    output_schema: open({ runs: { type: 'array' } }, ['runs']),
    suspends: false,
  },
  {
    name: 'workflow.list',
    family: 'workflow',
    description: 'The workflows in force: {workflows: [{name, description, armed, hash, starts, runs}]}.',
    input_schema: closed({}),
    output_schema: open({ workflows: { type: 'array' } }, ['workflows']),
    suspends: false,
  },
  {
    name: 'workflow.cancel',
    family: 'workflow',
    description: 'Cancel a live run; its in-flight steps are aborted.',
    input_schema: closed({ run: RUN, reason: { type: 'string' } }, ['run']),
    output_schema: open({ ok: { type: 'boolean' }, status: { type: 'string' } }, ['ok']),
    suspends: false,
  },
  {
    name: 'workflow.wait',
    family: 'workflow',
    description: "Wait for a run to end: {run, status, output, error}, or {run, status: 'running', timed_out: true}.",
    input_schema: closed({ run: RUN, timeout: TIMEOUT }, ['run']),
    output_schema: RUN_ANSWER,
    suspends: true,
  },
  {
    name: 'workflow.signal',
    family: 'workflow',
    description: 'Deliver a named signal to waiting runs; returns how many received it.',
    input_schema: closed({ name: { type: 'string', minLength: 1 }, payload: {}, run: RUN }, ['name']),
    output_schema: open({ delivered: { type: 'integer' } }, ['delivered']),
    suspends: false,
  },
  {
    name: 'workflow.create',
    family: 'workflow',
    description: 'Define a new workflow (a dialect-3 document); it is stored and survives restarts.',
    input_schema: closed({ definition: { type: 'object' }, arm: { type: 'boolean' } }, ['definition']),
    output_schema: DEFINED,
    suspends: false,
  },
  {
    name: 'workflow.update',
    family: 'workflow',
    description: 'Replace a runtime-created workflow with a new version; live runs keep the version they started with.',
    input_schema: closed({ name: NAME, definition: { type: 'object' } }, ['name', 'definition']),
    output_schema: DEFINED,
    suspends: false,
  },
  {
    name: 'workflow.delete',
    family: 'workflow',
    description: 'Delete a runtime-created workflow; live runs finish on their pinned version.',
    input_schema: closed({ name: NAME }, ['name']),
    output_schema: open({ ok: { type: 'boolean' } }, ['ok']),
    suspends: false,
  },
];
