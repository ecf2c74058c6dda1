// Held message and webhook deliveries and the run's signal buffer kept apart (producers reference §2.8, §3.7, §5
// item 8), over the real engine and SQLite: a full signal buffer loses none of its signals to a delivery, a
// delivery is never pushed out by signals, and a waiting step holds one delivery (a second is not taken).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SIGNAL_BUFFER_BOUND } from '../../../src/triggers/signalBuffer.js';
import { waitUntil } from '../wait.js';
import { named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());

const WAITER = {
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    x: { kind: 'wait', depends_on: 's', on: 'message', conversation: 'c', timeout: '20s' },
    y: { kind: 'wait', depends_on: 'x', on: 'signal', signal: 'noise', timeout: '20s' },
    f: {
      kind: 'finish',
      depends_on: 'y',
      output: { text: '{{steps.x.output.message.text}}', n: '{{steps.y.output.payload}}' },
    },
  },
};

const message = (key: string) => ({
  principal: 'user:ann',
  role: 'user',
  contextId: 'c',
  conversation: 'c',
  key,
  payload: { conversation: 'c', message: { text: key }, principal: 'user:ann' },
});

describe('held deliveries and the signal buffer', () => {
  it('a message held on a run with a full signal buffer drops no signal; a second message is not taken', async () => {
    const life = await openDesk(`${tmp.dir}/held`, [WAITER]);
    try {
      const got = await life.desk.start({
        workflow: 'w',
        inputs: {},
        startKey: 'k',
        principal: null,
        conversation: null,
      });
      assert.ok(got.ok);
      const id = got.run.id;
      await waitUntil(() => named(life.events, 'wait.armed').length === 1, 5_000, 'the message wait armed');
      // The buffer is full of signals nobody waits on yet.
      for (let i = 0; i < SIGNAL_BUFFER_BOUND; i++) await life.desk.signal('noise', i, `n-${i}`, id);
      const [first, second] = await Promise.all([
        life.desk.takeMessage(message('m-1')),
        life.desk.takeMessage(message('m-2')),
      ]);
      assert.deepEqual([first, second], [1, 0], 'the waiting step holds one message; the other goes on (a turn)');
      assert.equal(named(life.events, 'signal.dropped').length, 0, 'no signal dropped for the message');
      const run = await settled(life, id, 10_000);
      assert.equal(run.status, 'completed', String(run.error));
      // The message reached its wait, and the signal wait took the oldest signal: none was pushed out.
      assert.deepEqual(run.output, { text: 'm-1', n: 0 });
      assert.equal(named(life.events, 'wait.delivery.refused')[0]?.['reason'], 'taken');
    } finally {
      await life.close();
    }
  });
});
