// CONTRIBUTING.md's "Add a producer" example, run: a timer producer handed to createAgent accepts `timer` events
// through the seam, its turns run, and close() stops it (no event after the stop).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createAgent, runtimeOf } from '../../../src/agent.js';
import type { InboxEvent } from '../../../src/domain/inbox.js';
import { createLogger } from '../../../src/obs/log.js';
import type { Producer, ProducerContext } from '../../../src/runtime/producer.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil, within } from '../wait.js';

/** CONTRIBUTING.md's Heartbeat, as written there (everyMs instead of the config key it reads in src/). */
class Heartbeat implements Producer {
  readonly name = 'heartbeat';
  readonly accepted: InboxEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly everyMs: number) {}

  start(ctx: ProducerContext): void {
    this.timer = setInterval(() => {
      ctx
        .accept({ kind: 'timer', context_id: 'root', text: 'heartbeat: anything unusual?', principal: 'operator' })
        .then(({ record }) => this.accepted.push(record))
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
      assert.equal(first?.kind, 'timer');
      const outcome = await within(
        runtimeOf(agent).supervisor.outcomeOf(String(first?.id)),
        20_000,
        'the heartbeat turn',
      );
      assert.equal(outcome.reply, 'all quiet');
    } finally {
      await agent.close();
      await model.close();
    }
    const after = heartbeat.accepted.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(heartbeat.accepted.length, after, 'no heartbeat after close()');
  });
});
