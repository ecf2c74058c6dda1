// A wait on a run another replica drives reads its stored record until it ends (issue 19), and stops at abort.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { fencedThen, readyEach, storedEnd } from '../../../src/workflows/runClaims.js';

const stored = (status: string) => ({ id: 'r', status }) as unknown as WorkflowRun;

describe('storedEnd', () => {
  it('resolves with the stored run once it is terminal', async () => {
    const seen = ['running', 'running', 'completed'];
    let reads = 0;
    const read = async () => stored(seen[Math.min(reads++, seen.length - 1)] as string);
    const run = await storedEnd(read, 'r', new AbortController().signal, 5);
    assert.equal(run?.status, 'completed');
    assert.equal(reads, 3);
  });

  it('resolves null when the signal aborts first, and the run when it is gone', async () => {
    const abort = new AbortController();
    const waiting = storedEnd(async () => stored('running'), 'r', abort.signal, 60_000);
    setTimeout(() => abort.abort(), 10);
    assert.equal(await waiting, null);
    assert.equal(await storedEnd(async () => null, 'r', new AbortController().signal, 5), null);
  });
});

describe('readyEach (taking claimed runs)', () => {
  const runs = ['a', 'b', 'c'].map((id) => ({ id, status: 'running' }) as unknown as WorkflowRun);
  const quiet = { warn: () => {} };

  it('gives back the run whose readying threw and readies the rest', async () => {
    const released: string[] = [];
    const ready = async (run: WorkflowRun) => {
      if (run.id === 'b') throw new Error('repair failed');
    };
    const [readied] = await readyEach(runs, ready, async (id) => void released.push(id), quiet);
    assert.deepEqual(
      readied.map((r) => r.id),
      ['a', 'c'],
    );
    assert.deepEqual(released, ['b']);
  });

  it('gives them all back when a later step of the take fails, and a failed give-back does not stop the rest', async () => {
    const released: string[] = [];
    const release = async (id: string) => {
      released.push(id);
      if (id === 'a') throw new Error('db down');
    };
    const [, giveBack] = await readyEach(runs, async () => {}, release, quiet);
    await assert.rejects(giveBack(new Error('orphans')), /orphans/);
    assert.deepEqual(released, ['a', 'b', 'c']);
  });

  it('fencedThen runs its callback on store_fenced only, and rethrows', () => {
    let lost = 0;
    const handle = fencedThen(() => lost++);
    assert.throws(() => handle(Object.assign(new Error('x'), { code: 'store_fenced' })), /x/);
    assert.throws(() => handle(new Error('y')), /y/);
    assert.equal(lost, 1);
  });
});
