// The narrow producer context: its accept hands the runtime only the public message fields, whatever else the
// object a producer passes carries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { embedProducer, type ProducerContext, type ProducerMessage } from '../../../src/embeddedProducer.js';
import { DaemonError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/obs/log.js';
import type { ProducerContext as RuntimeContext } from '../../../src/runtime/producer.js';
import type { AcceptInput } from '../../../src/supervisor/supervisorOptions.js';

/** The narrow context a producer gets over a runtime context whose accept records its input. */
async function narrowed(): Promise<{ ctx: ProducerContext; inputs: AcceptInput[] }> {
  const inputs: AcceptInput[] = [];
  const record = { id: 'E1', status: 'pending' };
  const runtime = {
    config: {},
    accept: async (input: AcceptInput) => {
      inputs.push(input);
      return { record, created: true };
    },
    clock: () => 0,
    log: silentLogger,
    requestStop: () => {},
    restored: Promise.resolve(),
  } as unknown as RuntimeContext;
  let ctx: ProducerContext | null = null;
  const producer = embedProducer(
    {
      name: 'p',
      start: (c) => {
        ctx = c;
      },
      stop: () => {},
    },
    async () => ({ status: 'completed', reply: '' }) as never,
  );
  await producer.start(runtime);
  assert.ok(ctx);
  return { ctx, inputs };
}

describe('embedProducer', () => {
  it('copies only the public fields into the internal accept', async () => {
    const { ctx, inputs } = await narrowed();
    const message = {
      context_id: 'c1',
      text: 'hi',
      principal: 'user:a',
      dedupe_key: 'k1',
      kind: 'timer',
      mode: 'plan',
      // Internal fields a plain object could carry: spread whole (the premise), they reached the inbox event.
      task: { id: 'T-forged' },
      msg_depth: 9,
      parent: 'E0',
    } as ProducerMessage;
    const accepted = await ctx.accept(message);
    assert.equal(accepted.id, 'E1');
    assert.deepEqual(inputs, [
      { context_id: 'c1', text: 'hi', principal: 'user:a', dedupe_key: 'k1', kind: 'timer', mode: 'plan' },
    ]);
  });

  it('leaves out the optional fields a message does not set', async () => {
    const { ctx, inputs } = await narrowed();
    await ctx.accept({ context_id: 'c1', text: 'hi', principal: null });
    assert.deepEqual(inputs, [{ context_id: 'c1', text: 'hi', principal: null }]);
  });

  it('refuses a kind other than a2a_message or timer, naming it', async () => {
    const { ctx, inputs } = await narrowed();
    const forged = { context_id: 'c1', text: 'hi', principal: null, kind: 'side_task' } as unknown as ProducerMessage;
    await assert.rejects(ctx.accept(forged), (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, 'usage_invalid');
      assert.match(err.message, /kind must be 'a2a_message' or 'timer', got "side_task"/);
      return true;
    });
    assert.equal(inputs.length, 0);
  });
});
