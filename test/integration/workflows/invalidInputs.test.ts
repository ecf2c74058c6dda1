// P-12 (producers reference §2.9, §4): inputs that fail the workflow's `inputs.schema` start no run — the caller is
// refused with the schema's explanation and `run.inputs.invalid` is logged; a bare `once` start is refused alike.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { named, openDesk, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());

const doc = (start: string) => ({
  name: 'w',
  inputs: { schema: { type: 'object', required: ['build'], properties: { build: { type: 'string' } } } },
  steps: { s: { kind: start }, f: { kind: 'finish', depends_on: 's', output: '{{inputs.build}}' } },
});

describe('invalid inputs (P-12)', () => {
  it('a bare once start: run.inputs.invalid naming the missing input, no run', async () => {
    const life = await openDesk(`${tmp.dir}/once`, [doc('once')]);
    try {
      assert.deepEqual(await life.desk.fireOnce(), []);
      const refused = named(life.events, 'run.inputs.invalid');
      assert.equal(refused.length, 1);
      assert.equal(refused[0]?.workflow, 'w');
      assert.equal(refused[0]?.start_key, 'once:w.s');
      assert.match(String(refused[0]?.reason), /^workflow "w": inputs do not match inputs\.schema: .*build/);
      assert.deepEqual(await life.store.workflows.listRuns({}), []);
      assert.equal(named(life.events, 'run.start').length, 0);
    } finally {
      await life.close();
    }
  });

  it('a caller asking with inputs of the wrong type gets the explanation; no run', async () => {
    const life = await openDesk(`${tmp.dir}/manual`, [doc('manual')]);
    try {
      const got = await life.desk.start({
        workflow: 'w',
        inputs: { build: 7 },
        startKey: 'k',
        principal: null,
        conversation: null,
      });
      assert.ok(!got.ok);
      assert.match(got.error, /^workflow "w": inputs do not match inputs\.schema: .*build.*string/);
      assert.deepEqual(
        named(life.events, 'run.inputs.invalid').map((e) => [e.start_key, e.reason]),
        [['k', got.error]],
      );
      assert.deepEqual(await life.store.workflows.listRuns({}), []);
      const fine = await life.desk.start({
        workflow: 'w',
        inputs: { build: 'b1' },
        startKey: 'k2',
        principal: null,
        conversation: null,
      });
      assert.ok(fine.ok, 'the premise: valid inputs start a run');
    } finally {
      await life.close();
    }
  });
});

describe('invalid inputs from an A2A caller (P-12)', () => {
  it("the caller's task is rejected with the schema's explanation; no run", async () => {
    const yaml = `workflows:
  - name: w
    inputs: {schema: {type: object, required: [build]}}
    steps:
      s: {kind: a2a, command: build}
      f: {kind: finish, depends_on: s}
`;
    const rig = await startRig({ turns: [] }, {}, { tasks: true, a2aStarts: true, yaml });
    try {
      assert.ok(rig.backend);
      const armed = () => rig.a2aStarts?.match({ command: 'build', role: 'user' }) != null;
      await waitUntil(armed, 10_000, 'the a2a start armed');
      const caller = { id: 'user:alice', role: 'user' as const, grants: [] };
      const task = await rig.backend.send(caller, { text: '', command: { op: 'build', args: {} }, messageId: 'b-1' });
      assert.equal(task.state, 'rejected');
      assert.match(JSON.stringify(task), /workflow \\"w\\": inputs do not match inputs\.schema: .*build/);
      assert.equal(rig.named('run.inputs.invalid').length, 1);
      assert.deepEqual(await rig.store.workflows.listRuns({}), []);
    } finally {
      await rig.close();
    }
  });
});
