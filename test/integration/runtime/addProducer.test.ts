// An embedding program's producer (docs/guide/embedding.md), run: a timer producer handed to createAgent accepts
// `timer` messages through the narrow public context, learns their outcomes, and close() stops it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createAgent } from '../../../src/agent.js';
import type { AcceptedMessage, Producer, ProducerContext } from '../../../src/embeddedProducer.js';
import { createLogger } from '../../../src/obs/log.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../wait.js';

/** The guide's Heartbeat, as written there. */
class Heartbeat implements Producer {
  readonly name = 'heartbeat';
  readonly accepted: AcceptedMessage[] = [];
  ctx: ProducerContext | null = null;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly everyMs: number) {}

  start(ctx: ProducerContext): void {
    this.ctx = ctx;
    this.timer = setInterval(() => {
      ctx
        .accept({ kind: 'timer', context_id: 'root', text: 'heartbeat: anything unusual?', principal: 'operator' })
        .then((accepted) => this.accepted.push(accepted))
        .catch((err: unknown) => ctx.log.warn('producer.failed', { producer: this.name, err: String(err) }));
    }, this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

describe('a producer of your own', () => {
  it('accepts timer events through ctx.accept; its turns answer; stop() ends it', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'all quiet' }] });
    const dir = mkdtempSync(join(tmpdir(), 'agentd-producer-'));
    const heartbeat = new Heartbeat(200);
    const agent = await createAgent({
      config: { env: { AGENTD_STATE_DIR: dir }, flags: { intelligence: model.url, model: 'test-model' }, cwd: dir },
      log: createLogger({ level: 'error', write: () => {} }),
      producers: [heartbeat],
    });
    try {
      await waitUntil(() => heartbeat.accepted.length >= 2, 10_000, 'two heartbeats');
      const [first] = heartbeat.accepted;
      assert.equal(first?.created, true);
      const ctx = heartbeat.ctx;
      assert.ok(ctx);
      const outcome = await within(ctx.outcomeOf(String(first?.id)), 20_000, 'the heartbeat turn');
      assert.equal(outcome.reply, 'all quiet');
      // The context is narrow at run time too, not only in its type: no store, no supervisor.
      const keys = ['accept', 'clock', 'config', 'log', 'outcomeOf', 'requestStop', 'restored'];
      assert.deepEqual(Object.keys(ctx).sort(), keys);
    } finally {
      await agent.close();
      await model.close();
    }
    const after = heartbeat.accepted.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(heartbeat.accepted.length, after, 'no heartbeat after close()');
  });
});
