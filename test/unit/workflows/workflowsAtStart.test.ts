// When an idle-memory daemon loads the workflow engine at start (issue 14, lazyWorkflows.ts): a configured or stored
// definition, any stored run, a queued start or a subscribe start's rows; nothing of those, or only timers of
// others, leaves it unloaded until the first workflow.* call. Over the memory store (the Store behaviour suite holds
// the backends alike).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowDef, WorkflowRun } from '../../../src/domain/workflow.js';
import type { ProducerContext } from '../../../src/runtime/producer.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { workflowsAtStart } from '../../../src/workflows/lazyWorkflows.js';
import { QUEUED_START_KIND } from '../../../src/workflows/startQueue.js';
import { OWNER_PREFIX } from '../../../src/workflows/subscribeRows.js';

const ctxOf = (store: MemoryStore, workflows: unknown[] = []) =>
  ({ config: { workflows }, store }) as unknown as ProducerContext;

const finished: WorkflowRun = {
  id: 'run-1',
  workflow: 'triage',
  definition: { name: 'triage' } as unknown as WorkflowDef,
  status: 'completed',
  startKey: 'evt-1',
  start: { node: 'start', payload: {}, ts: 10 },
  inputs: {},
  vars: {},
  steps: {},
  principal: 'alice',
  conversation: null,
  deadlineMs: null,
  stepsRun: 1,
  output: 'done',
  error: null,
  created: 100,
  updated: 100,
  finished: 110,
};

const timer = (kind: string, owner: string) => ({ id: `t-${kind}`, owner, kind, due: 1, payload: {} });

describe('the workflow engine at start', () => {
  it('stays unloaded for an empty store and no workflows configured, or only others’ timers', async () => {
    const store = new MemoryStore();
    assert.equal(await workflowsAtStart(ctxOf(store)), false);
    await store.timers.arm(timer('tool', 'turn:t1'));
    assert.equal(await workflowsAtStart(ctxOf(store)), false);
  });

  it('loads over a shared store (replicas): a dead replica’s runs are adopted only by a loaded engine', async () => {
    const shared = { fleet: { replica: 'r1' } } as unknown as MemoryStore;
    assert.equal(await workflowsAtStart(ctxOf(shared)), true);
  });

  it('loads for a configured workflow', async () => {
    assert.equal(await workflowsAtStart(ctxOf(new MemoryStore(), [{ name: 'triage' }])), true);
  });

  it('loads for a stored definition', async () => {
    const store = new MemoryStore();
    await store.workflows.saveDefinition({ name: 'triage', version: 1, document: {}, hash: 'h', created: 1 });
    assert.equal(await workflowsAtStart(ctxOf(store)), true);
  });

  it('loads for a stored run, finished ones too (they are pruned at start)', async () => {
    const store = new MemoryStore();
    await store.workflows.createRun(finished);
    assert.equal(await workflowsAtStart(ctxOf(store)), true);
  });

  it('loads for a queued start and for a subscribe start’s rows', async () => {
    const queued = new MemoryStore();
    await queued.timers.arm(timer(QUEUED_START_KIND, 'trigger:x'));
    assert.equal(await workflowsAtStart(ctxOf(queued)), true);
    const subscribed = new MemoryStore();
    await subscribed.timers.arm(timer('subscribe_window', `${OWNER_PREFIX}wf/node`));
    assert.equal(await workflowsAtStart(ctxOf(subscribed)), true);
  });
});
