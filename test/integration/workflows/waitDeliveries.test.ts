// `wait on: condition | message` and `a2a.wait` over the real engine and SQLite (producers reference §2.8): a
// condition re-checked as memory changes, its error failing the step; a message taken only by the waits it
// addresses; and the load-time errors of these fields. (Across a crash and over the listener: test/e2e.)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { waitUntil } from '../wait.js';
import { around, named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const errors = (step: Record<string, unknown>): string[] => {
  const loaded = loadWorkflow(around(step));
  return loaded.ok ? [] : loaded.errors;
};

describe('wait on: condition', () => {
  it('ends once memory it names makes it true; a non-bool result fails the step', async () => {
    const life = await openDesk(freshDir(), [
      around({ kind: 'wait', on: 'condition', condition: 'memory.count > 2', timeout: '10s' }),
      { ...around({ kind: 'wait', on: 'condition', condition: 'memory.count + 1' }), name: 'bad' },
    ]);
    try {
      const got = await life.desk.start({
        workflow: 'w',
        inputs: {},
        startKey: 'k1',
        principal: null,
        conversation: null,
      });
      assert.ok(got.ok);
      await waitUntil(() => named(life.events, 'wait.armed').length === 1, 5_000, 'the wait armed');
      await life.store.memory.set({ key: 'count', value: 1, expires: null, updated: Date.now() });
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(life.desk.engine.get(got.run.id), 'premise: 1 > 2 is false, the run still waits');
      await life.store.memory.set({ key: 'count', value: 3, expires: null, updated: Date.now() });
      const run = await settled(life, got.run.id);
      assert.equal(run.status, 'completed', String(run.error));
      assert.deepEqual(run.output, { satisfied: true });
      const bad = await life.desk.start({
        workflow: 'bad',
        inputs: {},
        startKey: 'k2',
        principal: null,
        conversation: null,
      });
      assert.ok(bad.ok);
      const failed = await settled(life, bad.run.id);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error, 'step "x" failed: wait condition: CEL expression returned int, want bool');
    } finally {
      await life.close();
    }
  });
});

describe('wait on: message / a2a.wait', () => {
  it('a message is taken by the waits on its conversation (or any), and only for the run principal', async () => {
    const life = await openDesk(freshDir(), [
      around({ kind: 'a2a.wait', conversation: 'ctx-a' }),
      { ...around({ kind: 'wait', on: 'message', conversation: '' }), name: 'any' },
    ]);
    try {
      const a = await life.desk.start({
        workflow: 'w',
        inputs: {},
        startKey: 'k1',
        principal: 'user:ann',
        conversation: null,
      });
      const any = await life.desk.start({
        workflow: 'any',
        inputs: {},
        startKey: 'k2',
        principal: null,
        conversation: null,
      });
      assert.ok(a.ok && any.ok);
      await waitUntil(() => named(life.events, 'wait.armed').length === 2, 5_000, 'both waits armed');
      const msg = (principal: string, contextId: string, key: string) => ({
        principal,
        role: 'user',
        contextId,
        conversation: `${principal}/${contextId}`,
        key,
        payload: { conversation: contextId, message: { text: key }, principal },
      });
      assert.equal(await life.desk.takeMessage(msg('user:bob', 'ctx-a', 'm1')), 1, 'bob reaches only the open wait');
      assert.equal(await life.desk.takeMessage(msg('user:ann', 'ctx-a', 'm2')), 1, 'ann reaches her run');
      const mine = await settled(life, a.run.id);
      assert.deepEqual(mine.output, { conversation: 'ctx-a', message: { text: 'm2' }, principal: 'user:ann' });
      assert.deepEqual((await settled(life, any.run.id)).output, {
        conversation: 'ctx-a',
        message: { text: 'm1' },
        principal: 'user:bob',
      });
    } finally {
      await life.close();
    }
  });
});

describe('a message wait in a run with no conversation', () => {
  it('fails unless it names a conversation ("" for any): it never falls into taking every message', async () => {
    const life = await openDesk(freshDir(), [
      around({ kind: 'wait', on: 'message' }),
      { ...around({ kind: 'a2a.wait' }), name: 'peer' },
    ]);
    try {
      for (const workflow of ['w', 'peer']) {
        const got = await life.desk.start({
          workflow,
          inputs: {},
          startKey: workflow,
          principal: null,
          conversation: null,
        });
        assert.ok(got.ok);
        const run = await settled(life, got.run.id);
        assert.equal(run.status, 'failed');
        const what = workflow === 'w' ? 'wait on: message' : 'a2a.wait';
        assert.equal(
          run.steps['x']?.error,
          `${what}: the run has no conversation; name one with conversation ("" waits on any)`,
        );
      }
      const msg = { principal: 'user:eve', role: 'user', contextId: 'c', conversation: 'c', key: 'm', payload: null };
      assert.equal(await life.desk.takeMessage(msg), 0, 'no wait took a stranger’s message');
    } finally {
      await life.close();
    }
  });
});

describe('a message sent while the desk restores', () => {
  it('reaches the restored run waiting for it (not a turn)', async () => {
    const dir = freshDir();
    const docs = [around({ kind: 'wait', on: 'message', conversation: 'ctx-r' })];
    const life1 = await openDesk(dir, docs);
    const got = await life1.desk.start({
      workflow: 'w',
      inputs: {},
      startKey: 'k',
      principal: null,
      conversation: null,
    });
    assert.ok(got.ok);
    await waitUntil(() => named(life1.events, 'wait.armed').length === 1, 5_000, 'the wait armed');
    await life1.close();
    const life2 = await openDesk(dir, docs, { deferOpen: true });
    try {
      const payload = { conversation: 'ctx-r', message: { text: 'early' }, principal: 'user:ann' };
      const msg = { principal: 'user:ann', role: 'user', contextId: 'ctx-r', conversation: 'x', key: 'm', payload };
      const taken = life2.desk.takeMessage(msg);
      await life2.desk.open();
      assert.equal(await taken, 1, 'held for the restored wait');
      assert.deepEqual((await settled(life2, got.run.id)).output, payload);
    } finally {
      await life2.close();
    }
  });

  it('is taken by none when the desk stops before it opened (nothing hangs)', async () => {
    const life = await openDesk(freshDir(), [], { deferOpen: true });
    const msg = { principal: 'u', role: 'user', contextId: 'c', conversation: 'c', key: 'm', payload: null };
    const taken = life.desk.takeMessage(msg);
    await life.close();
    assert.equal(await taken, 0);
  });
});

describe('load-time errors', () => {
  it('names the field of each malformed or misplaced value', () => {
    const at = 'workflow "w" step "x": ';
    assert.deepEqual(errors({ kind: 'wait', on: 'condition' }), [
      `${at}wait on: condition needs condition (a CEL predicate)`,
    ]);
    assert.deepEqual(errors({ kind: 'wait', on: 'condition', condition: 'memory[k] == 1' }), [
      `${at}wait.condition: read memory as memory.<key> or memory["key"] (has(memory.<key>) tests one)`,
    ]);
    assert.deepEqual(errors({ kind: 'wait', on: 'signal', signal: 's', conversation: 'c' }), [
      `${at}wait.conversation applies only to on: message`,
    ]);
    assert.deepEqual(errors({ kind: 'wait', on: 'webhook', webhook: { path: 'x', bogus: 1 } }), [
      `${at}unknown wait.webhook field "bogus" (allowed: path, auth, methods, emit_url_to)`,
      `${at}wait.webhook.path must start with / (no query)`,
    ]);
    assert.deepEqual(errors({ kind: 'wait', on: 'webhook', webhook: { auth: { magic: true } } }), [
      `${at}wait.webhook.auth: must be one of {none: true}, {bearer}, {header: {name, equals}}, {hmac: {secret, header, prefix}}, {a2a: true}`,
    ]);
    assert.deepEqual(errors({ kind: 'a2a.wait', conversation: 7, timeout: '2d' }), [
      `${at}a2a.wait.conversation must be a conversation id or A2A contextId (a string; empty: any)`,
      `${at}timeout: unknown duration unit 'd' in 2d`,
    ]);
  });
});
