// The producer registry: start order, reverse stop order, a failing start that leaves nothing half up, and
// intake: a producer whose intake stopped has its accepts refused, one without intake of its own does not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import type { Producer, ProducerContext } from '../../../src/runtime/producer.js';
import { ProducerRegistry } from '../../../src/runtime/producers.js';

const log = createLogger({ level: 'error', write: () => {} });
/** The registry itself reads only the log; the rest of the context is the producers' business. */
const ctx = { log } as unknown as ProducerContext;

function recorder(calls: string[], name: string, opts: { failStart?: boolean; failStop?: boolean } = {}): Producer {
  return {
    name,
    start: async () => {
      await Promise.resolve();
      calls.push(`start ${name}`);
      if (opts.failStart) throw new Error(`${name} cannot start`);
    },
    stop: () => {
      calls.push(`stop ${name}`);
      if (opts.failStop) throw new Error(`${name} cannot stop`);
    },
  };
}

describe('ProducerRegistry', () => {
  it('starts producers one after another in registration order and stops them in the reverse order', async () => {
    const calls: string[] = [];
    const registry = new ProducerRegistry(['a', 'b', 'c'].map((n) => recorder(calls, n)));
    await registry.start(ctx);
    assert.deepEqual(calls, ['start a', 'start b', 'start c']);
    await registry.stop(ctx);
    assert.deepEqual(calls.slice(3), ['stop c', 'stop b', 'stop a']);
    await registry.stop(ctx);
    assert.equal(calls.length, 6, 'a second stop stops nothing twice');
  });

  it('refuses the accepts of a producer whose intake stopped; one without stopIntake keeps accepting', async () => {
    const accepted: string[] = [];
    const base = { log, accept: async (input: { text: string }) => void accepted.push(input.text) };
    const ctxOf = new Map<string, ProducerContext>();
    const producer = (name: string, intake: boolean): Producer => ({
      name,
      start: (c) => void ctxOf.set(name, c),
      ...(intake ? { stopIntake: () => {} } : {}),
      stop: () => {},
    });
    const registry = new ProducerRegistry([producer('outside', true), producer('inner', false)]);
    await registry.start(base as unknown as ProducerContext);
    const say = (name: string, text: string) =>
      ctxOf.get(name)?.accept({ context_id: 'c', text, principal: 'operator' });
    await say('outside', 'before');
    await registry.stopIntake({ log });
    await assert.rejects(say('outside', 'after') ?? Promise.resolve(), /draining/);
    await say('inner', 'from a running turn');
    assert.deepEqual(accepted, ['before', 'from a running turn']);
  });

  it('a failing start stops what already started (newest first), never the failed one or later ones', async () => {
    const calls: string[] = [];
    const producers = [recorder(calls, 'a'), recorder(calls, 'b'), recorder(calls, 'x', { failStart: true })];
    const registry = new ProducerRegistry([...producers, recorder(calls, 'd')]);
    await assert.rejects(registry.start(ctx), /x cannot start/);
    assert.deepEqual(calls, ['start a', 'start b', 'start x', 'stop b', 'stop a']);
  });

  it('a stop that throws does not keep the others from stopping', async () => {
    const calls: string[] = [];
    const registry = new ProducerRegistry([recorder(calls, 'a'), recorder(calls, 'b', { failStop: true })]);
    await registry.start(ctx);
    await registry.stop(ctx);
    assert.deepEqual(calls.slice(2), ['stop b', 'stop a']);
  });
});
