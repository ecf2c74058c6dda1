// Signals sent to a run with no waiter ready are held on the run (producers reference §5 item 8: agentd loses them),
// durably: a restart still holds them, and a waiter takes the oldest of its name.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { named, openDesk, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());

// A run kept live by a long sleep: nothing in it waits on a signal yet.
const NAPPER = {
  name: 'napper',
  steps: {
    s: { kind: 'once' },
    nap: { kind: 'sleep', depends_on: 's', duration: '1h' },
    f: { kind: 'finish', depends_on: 'nap' },
  },
};

describe('run signal buffer', () => {
  it('holds a signal sent to a live run across a restart; a replay is held once; a waiter takes it', async () => {
    const dir = `${tmp.dir}/signals`;
    const first = await openDesk(dir, [NAPPER]);
    const [run] = await first.desk.fireOnce();
    assert.ok(run);
    assert.equal(await first.desk.signal('go', { n: 1 }, 'k1', run.id), 1, 'delivered: held on the run');
    assert.equal(await first.desk.signal('go', { n: 1 }, 'k1', run.id), 0, 'a replayed send holds nothing twice');
    assert.equal(
      await first.desk.signal('go', { n: 2 }, 'k2'),
      0,
      'premise: without a run and a start, nobody gets it',
    );
    assert.equal(named(first.events, 'signal.buffered').length, 1);
    await first.close();

    const second = await openDesk(dir, [NAPPER]);
    const stored = await second.store.workflows.getRun(run.id);
    assert.deepEqual(
      stored?.signals?.map((s) => [s.name, s.payload]),
      [['go', { n: 1 }]],
      'held durably with the run',
    );
    const taken = await second.desk.engine.mail.takeSignal(run.id, 'go');
    assert.deepEqual(taken?.payload, { n: 1 });
    assert.equal(await second.desk.engine.mail.takeSignal(run.id, 'go'), null, 'taken once');
    assert.deepEqual((await second.store.workflows.getRun(run.id))?.signals, []);
    await second.desk.engine.cancel(run.id, 'test over');
    await second.close();
  });
});
