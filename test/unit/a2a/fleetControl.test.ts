// The fleet's stored pause at a replica's first look (issue 19): a pause stored after the start read the table but
// before the first look is applied, not taken for already applied. Premise: the first look used to record what it
// read as applied without applying it, so a replica whose start raced a pause stayed unpaused (seen in
// fleetControls.test.ts under load). A stand-in fleet: the table and NOTIFY are PostgreSQL's, tested there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetOperations } from '../../../src/a2a/fleetOperations.js';
import { silentLogger } from '../../../src/obs/log.js';
import type { OpenQuestions } from '../../../src/runtime/openQuestions.js';
import type { FleetControl, Store } from '../../../src/store/store.js';
import { waitUntil } from '../../integration/wait.js';

function storeWith(stored: FleetControl | null): Store {
  const fleet = { onSignal: () => () => {}, readControl: async () => stored };
  return { fleet } as unknown as Store;
}

describe('the fleet pause at the first look', () => {
  for (const stored of ['pause', 'resume'] as const) {
    it(`applies a stored ${stored}`, async () => {
      const applied: string[] = [];
      const control = { pause: () => applied.push('pause'), resume: () => applied.push('resume') };
      const ops = new FleetOperations(storeWith(stored), {} as OpenQuestions, silentLogger, control);
      ops.start();
      try {
        await waitUntil(() => applied.length > 0, 2_000, 'the first look applies what is stored');
        assert.deepEqual(applied, [stored]);
      } finally {
        ops.stop();
      }
    });
  }

  it('applies nothing when nothing is stored', async () => {
    const applied: string[] = [];
    const control = { pause: () => applied.push('pause'), resume: () => applied.push('resume') };
    const ops = new FleetOperations(storeWith(null), {} as OpenQuestions, silentLogger, control);
    ops.start();
    await new Promise((r) => setTimeout(r, 50));
    ops.stop();
    assert.deepEqual(applied, []);
  });
});

describe('the fleet pause against stale reads (issue 19 review item 5)', () => {
  const look = (ops: FleetOperations) => (ops as unknown as { readControl(): void }).readControl();

  it('a read issued before a local pause does not undo it', async () => {
    const applied: string[] = [];
    const control = { pause: () => applied.push('pause'), resume: () => applied.push('resume') };
    let answer: (v: FleetControl) => void = () => {};
    const fleet = {
      onSignal: () => () => {},
      readControl: () => new Promise<FleetControl>((resolve) => (answer = resolve)),
      announceControl: async () => {},
    };
    const ops = new FleetOperations({ fleet } as unknown as Store, {} as OpenQuestions, silentLogger, control);
    ops.start();
    try {
      ops.controlled('pause');
      answer('resume');
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(applied, [], 'the read older than the pause is ignored');
    } finally {
      ops.stop();
    }
  });

  it('a pause whose storing failed is stored again at the next look, not reverted', async () => {
    const applied: string[] = [];
    const announced: FleetControl[] = [];
    const control = { pause: () => applied.push('pause'), resume: () => applied.push('resume') };
    let fail = true;
    let stored: FleetControl = 'resume';
    const fleet = {
      onSignal: () => () => {},
      readControl: async () => stored,
      announceControl: async (op: FleetControl) => {
        announced.push(op);
        if (fail) throw new Error('connection lost');
        stored = op;
      },
    };
    const ops = new FleetOperations({ fleet } as unknown as Store, {} as OpenQuestions, silentLogger, control);
    ops.controlled('pause');
    await new Promise((r) => setTimeout(r, 20));
    fail = false;
    look(ops);
    await new Promise((r) => setTimeout(r, 20));
    look(ops);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(announced, ['pause', 'pause']);
    assert.deepEqual(applied, [], 'the stale stored resume is never applied');
  });
});
