// The runtime stops in the reverse order of its start: producers' intake first (a new SendMessage is refused,
// nothing new enters the inbox), then the drain (a running task's stream still hears its end), then producers,
// listeners and the store. Real store, workers, listener and the official A2A client.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import { compileConfig } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import type { Producer, ProducerContext } from '../../../src/runtime/producer.js';
import { startRuntime } from '../../../src/runtime/startRuntime.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { send } from '../../e2e/daemon.js';
import { clientFor } from '../a2a/listenerHarness.js';
import { waitUntil, within } from '../wait.js';

/** The stream's states, until a terminal one (or the stream ends). */
async function statesUntilEnd(stream: AsyncGenerator<StreamResponse>): Promise<TaskState[]> {
  const states: TaskState[] = [];
  for await (const event of stream) {
    const p = event.payload;
    const state =
      p?.$case === 'statusUpdate' ? p.value.status?.state : p?.$case === 'task' ? p.value.status?.state : undefined;
    if (state === undefined) continue;
    states.push(state);
    if (state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED) break;
  }
  return states;
}

/** A producer without intake of its own (as message.send's): it keeps accepting during the drain. */
function inner(): Producer & { deliver(): Promise<unknown> } {
  let ctx: ProducerContext | null = null;
  return {
    name: 'inner',
    start: (c: ProducerContext) => {
      ctx = c;
    },
    stop: () => {},
    deliver: () => {
      const delivery = { kind: 'agent_message', from: 'root', context_id: 'helper', text: 'hand-off' } as const;
      return ctx?.accept({ ...delivery, principal: 'operator' }) ?? Promise.reject(new Error('not started'));
    },
  };
}

/** A producer that records its lifecycle, and tries one accept once its intake was stopped. */
function recorder(
  order: string[],
  sibling: ReturnType<typeof inner>,
): Producer & { lateAccept: Promise<unknown> | null; lateDelivery: Promise<unknown> | null } {
  let ctx: ProducerContext | null = null;
  const p = {
    name: 'recorder',
    lateAccept: null as Promise<unknown> | null,
    lateDelivery: null as Promise<unknown> | null,
    start: (c: ProducerContext) => {
      ctx = c;
    },
    stopIntake: () => {
      order.push('recorder.stopIntake');
      p.lateAccept = ctx?.accept({ context_id: 'late', text: 'too late', principal: 'operator' }) ?? null;
      p.lateAccept?.catch(() => {});
      // Work a running turn starts (message.send) is not outside work: it is still accepted, to replay later.
      p.lateDelivery = sibling.deliver();
    },
    stop: () => void order.push('recorder.stop'),
  };
  return p;
}

describe('runtime stop order', () => {
  it('refuses new messages during the drain while a running task’s stream hears its end', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'finished during the drain', delay_ms: 2_500 }] });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-stop-order-'));
    const events: Array<Record<string, unknown>> = [];
    const order: string[] = [];
    const log = createLogger({
      level: 'debug',
      write: (line) => {
        const e = JSON.parse(line);
        events.push(e);
        if (['drain.start', 'drain.done', 'store.closed'].includes(e.event)) order.push(e.event);
      },
    });
    const config = compileConfig({
      files: [],
      env: { AGENTD_STATE_DIR: dir, AGENTD_A2A_LISTEN: 'http://127.0.0.1:0' },
      flags: { intelligence: model.url, model: 'test-model' },
      cwd: dir,
    });
    const sibling = inner();
    const producer = recorder(order, sibling);
    const runtime = await startRuntime(config, { log, warmWorkers: 0, producers: [sibling, producer] });
    let stopping: Promise<void> | null = null;
    try {
      const url = String(events.find((e) => e.event === 'a2a.listen')?.bound);
      const client = await clientFor(url);
      const streamed = statesUntilEnd(client.sendMessageStream(send('run slowly')));
      await waitUntil(() => events.some((e) => e.event === 'turn.spawn'), 20_000, 'the turn runs');
      stopping = runtime.stop();
      await waitUntil(() => order.includes('drain.start'), 5_000, 'the drain starts');
      await assert.rejects(
        within(client.sendMessage(send('one more')), 5_000, 'the refused send'),
        /draining/,
        'a new message during the drain is refused, saying why',
      );
      await assert.rejects(within(producer.lateAccept ?? Promise.resolve(), 5_000, 'late accept'), /draining/);
      const delivered = (await within(producer.lateDelivery ?? Promise.reject(), 5_000, 'late delivery')) as {
        created: boolean;
      };
      assert.equal(delivered.created, true, 'a running turn’s message.send is still accepted during the drain');
      const states = await within(streamed, 20_000, 'the running task’s stream');
      assert.equal(states.at(-1), TaskState.TASK_STATE_COMPLETED, 'the stream heard the end during the drain');
      await within(stopping, 20_000, 'the stop');
      const accepted = events.filter((e) => e.event === 'inbox.accepted').map((e) => e.kind);
      assert.deepEqual(accepted, ['a2a_message', 'agent_message'], 'no new outside work entered the inbox');
      assert.deepEqual(
        order.filter((o) => o !== 'store.closed'),
        ['recorder.stopIntake', 'drain.start', 'drain.done', 'recorder.stop'],
      );
    } finally {
      await (stopping ?? runtime.stop());
      await model.close();
    }
  });
});
