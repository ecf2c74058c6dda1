// A wait on a run another replica drives reads its stored record until it ends (issue 19), and stops at abort.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowRun } from '../../../src/domain/workflow.js';
import { storedEnd } from '../../../src/workflows/runClaims.js';

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
