// Commands over A2A: an operator command a user sends is refused before its conversation is loaded (before, a
// user's goal.get loaded the conversation first, then refused); a steering command runs with its conversation held.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BackendError, type Principal } from '../../../src/a2a/backend.js';
import { commandTask } from '../../../src/a2a/commands.js';
import type { SupervisorPort } from '../../../src/runtime/producer.js';

const USER: Principal = { id: 'user:alice', role: 'user', grants: [] };
const OPERATOR: Principal = { id: 'operator', role: 'operator', grants: [] };

function port(loaded: string[]): SupervisorPort {
  const intake = {
    withLoaded: async (ctx: string, work: () => unknown) => {
      loaded.push(ctx);
      return work();
    },
  };
  const steering = { goalGet: () => null, goalClear: () => false, setMode: () => {} };
  return { intake, steering } as unknown as SupervisorPort;
}

const run = (principal: Principal, op: string, loaded: string[], args: Record<string, unknown> = {}) =>
  commandTask(
    principal,
    { text: '', contextId: 'c', command: { op, args } },
    { supervisor: port(loaded), drain: () => {}, conversation: `${principal.id}/c`, now: 5 },
  );

describe('commandTask', () => {
  it("refuses a user's goal.get and goal.clear without loading the conversation", async () => {
    const loaded: string[] = [];
    for (const op of ['goal.get', 'goal.clear']) {
      await assert.rejects(
        run(USER, op, loaded),
        (err: unknown) => err instanceof BackendError && err.kind === 'forbidden',
      );
    }
    assert.deepEqual(loaded, []);
  });

  it("loads (and holds) the conversation for the operator's goal.get and anyone's mode", async () => {
    const loaded: string[] = [];
    assert.equal((await run(OPERATOR, 'goal.get', loaded)).result, JSON.stringify({ goal: null }));
    await run(USER, 'mode', loaded, { mode: 'plan' });
    assert.deepEqual(loaded, ['operator/c', 'user:alice/c']);
  });
});
