// A warm subagent's session (reference §1.8): one run per injected message over one transcript with a fresh
// deadline each, running usage totals, pause held at a run boundary, cancel winning over everything.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import type { SpawnPayload, TurnResult, UpFrame } from '../../../src/protocol/frames.js';
import type { Msg } from '../../../src/protocol/messages.js';
import { InjectQueue, runSession } from '../../../src/worker/warmSession.js';

const log = createLogger({ level: 'error', write: () => {} });

function payload(warm: boolean): SpawnPayload {
  return {
    turn: {
      turn_id: 'sub-1.run1',
      messages: [{ role: 'user', text: 'first', ts: 0 }],
      subagent: { handle: 'sub-1', warm, run: 1 },
    },
  } as unknown as SpawnPayload;
}

const done = (text: string): TurnResult => ({
  status: 'completed',
  messages: [{ role: 'assistant', text, tool_calls: [], ts: 0 }],
  text,
  usage: { input_tokens: 10, output_tokens: 1 },
  rounds: 1,
  tool_calls: 0,
});

describe('runSession', () => {
  it('runs a one-shot subagent once', async () => {
    let runs = 0;
    const result = await runSession(payload(false), 0, {
      run: async () => {
        runs++;
        return done('only');
      },
      send: async () => {},
      next: async () => 'never asked',
      now: () => 0,
      log,
    });
    assert.equal(runs, 1);
    assert.equal(result.text, 'only');
  });

  it('runs one turn per message over one transcript, each from its own start, and closes on cancel', async () => {
    const seen: Array<{ messages: Msg[]; at: number; base: number; id: string }> = [];
    const sent: UpFrame[] = [];
    const inbox = ['second', null];
    let clock = 100;
    const result = await runSession(payload(true), 0, {
      run: async (spec, at, base) => {
        seen.push({ messages: spec.turn.messages, at, base: base.input_tokens, id: spec.turn.turn_id });
        return done(`answer ${seen.length}`);
      },
      send: async (f) => {
        sent.push(f);
      },
      next: async () => {
        clock += 1000;
        return inbox.shift() ?? null;
      },
      now: () => clock,
      log,
    });
    assert.deepEqual(
      seen.map((s) => [s.id, s.at, s.base]),
      [
        ['sub-1.run1', 0, 0],
        ['sub-1.run2', 1100, 10],
      ],
    );
    const texts = seen[1]?.messages.map((m) => ('text' in m ? m.text : '')) ?? [];
    assert.deepEqual(texts, ['first', 'answer 1', 'second']);
    assert.deepEqual(
      sent.map((f) => (f.type === 'usage' ? `usage ${f.input_tokens}` : f.type)),
      ['usage 10', 'turn_done', 'usage 20', 'turn_done'],
    );
    assert.equal(result.status, 'cancelled', 'a cancel between runs closes the session');
    assert.equal(result.usage.input_tokens, 20);
  });
});

describe('InjectQueue', () => {
  it('holds messages while paused and gives them in order after resume; a cancel wins', async () => {
    const q = new InjectQueue();
    const cancel = new AbortController();
    q.setPaused(true);
    q.push('a');
    q.push('b');
    let got: string | null | undefined;
    const first = q.next(cancel.signal).then((m) => {
      got = m;
    });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(got, undefined, 'paused: nothing yet');
    assert.equal(q.setPaused(false), true);
    await first;
    assert.equal(got, 'a');
    assert.equal(await q.next(cancel.signal), 'b');
    const waiting = q.next(cancel.signal);
    cancel.abort();
    assert.equal(await waiting, null);
  });
});
