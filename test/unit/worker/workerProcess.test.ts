import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeFrame } from '../../../src/protocol/frameCodec.js';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { startScriptedModel } from '../../doubles/scriptedModel.js';
import { makePayload } from './turnHarness.js';
import type { Worker } from './workerProcessHarness.js';
import { spawnFrame, startWorker } from './workerProcessHarness.js';

describe('worker process', () => {
  let model: ScriptedModel;
  const spawned: Worker[] = [];
  before(async () => {
    model = await startScriptedModel({
      turns: [{ tool_calls: [{ name: 'memory.set', arguments: { key: 'k', value: 'v' } }] }, { content: 'all done' }],
      match: [
        { when_contains: 'hang please', content: 'late', delay_ms: 60_000 },
        { when_contains: 'unauthorized', http_status: 401 },
      ],
    });
  });
  after(async () => {
    for (const w of spawned) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await model.close();
  });
  const worker = (): Worker => {
    const w = startWorker();
    spawned.push(w);
    return w;
  };

  it('runs a turn: ready, tool_request answered, usage then turn_done, exit 0', async () => {
    const w = worker();
    const payload = makePayload(model.url);
    payload.telemetry.log_level = 'info';
    w.child.stdin.write(spawnFrame(payload));
    const request = await w.waitFor((f) => f.type === 'tool_request');
    assert.ok(request.type === 'tool_request');
    assert.equal(request.name, 'memory.set');
    assert.deepEqual(request.args, { key: 'k', value: 'v' });
    assert.equal(request.index, 0, 'the call index across the turn travels with the request');
    w.child.stdin.write(encodeFrame({ type: 'tool_result', id: request.id, result: { ok: true }, is_error: false }));
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.equal(await w.exit(), 0, w.stderr());
    assert.ok(done.type === 'turn_done');
    assert.equal(done.turn.status, 'completed');
    assert.equal(done.turn.text, 'all done');
    assert.deepEqual(
      done.turn.messages.map((m) => m.role),
      ['assistant', 'tool', 'assistant'],
    );
    const types = w.frames.map((f) => f.type);
    assert.equal(types[0], 'ready');
    assert.deepEqual(types.slice(-2), ['usage', 'turn_done']);
    assert.ok(types.includes('event'));
    assert.deepEqual(w.frames.at(-2), { type: 'usage', input_tokens: 22, output_tokens: 12 });
    assert.match(w.stderr(), /"event":"turn.done","pid":\d+,"comp":"worker"/);
  });

  it('answers ping while a model call hangs, saying it is inside one, and exits 1 at once when stdin closes', async () => {
    const w = worker();
    const payload = makePayload(model.url, { turn: { messages: [{ role: 'user', text: 'hang please', ts: 1 }] } });
    w.child.stdin.write(spawnFrame(payload));
    await w.waitFor((f) => f.type === 'event' && f.event === 'turn.think');
    w.child.stdin.write(encodeFrame({ type: 'ping', seq: 7 }));
    assert.deepEqual(await w.waitFor((f) => f.type === 'pong'), { type: 'pong', seq: 7, busy: 'model' });
    w.child.stdin.end();
    assert.equal(await w.exit(), 1);
    assert.ok(!w.frames.some((f) => f.type === 'turn_done'));
  });

  it('a cancel frame aborts the model call ⇒ turn_done cancelled, exit 1', async () => {
    const w = worker();
    const payload = makePayload(model.url, { turn: { messages: [{ role: 'user', text: 'hang please', ts: 1 }] } });
    w.child.stdin.write(spawnFrame(payload));
    await w.waitFor((f) => f.type === 'event' && f.event === 'turn.think');
    w.child.stdin.write(encodeFrame({ type: 'cancel', reason: 'test' }));
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.ok(done.type === 'turn_done' && done.turn.status === 'cancelled');
    assert.equal(await w.exit(), 1);
  });

  it('a model 401 ends failed with exit 4 and no token on stderr', async () => {
    const w = worker();
    const token = 'sk-process-secret-777';
    const payload = makePayload(model.url, {
      token,
      turn: { messages: [{ role: 'user', text: 'unauthorized', ts: 1 }] },
    });
    w.child.stdin.write(spawnFrame(payload));
    assert.equal(await w.exit(), 4);
    assert.ok(!w.stderr().includes(token));
  });

  it('a spare answers pings before its spawn frame (not busy), then runs the turn the spawn frame brings', async () => {
    const w = worker();
    w.child.stdin.write(encodeFrame({ type: 'ping', seq: 3 }));
    assert.deepEqual(await w.waitFor((f) => f.type === 'pong'), { type: 'pong', seq: 3 });
    const payload = makePayload(model.url, { turn: { messages: [{ role: 'user', text: 'unauthorized', ts: 1 }] } });
    w.child.stdin.write(spawnFrame(payload));
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.ok(done.type === 'turn_done' && done.turn.status === 'failed', 'the spawn frame ran its turn');
    assert.equal(await w.exit(), 4);
  });

  it('a lean spare given spawn, ping and cancel in one chunk answers pong, ready, usage, turn_done cancelled, exits', async () => {
    assert.equal(process.env['AGENTD_WORKER_PRELOAD'], undefined, 'premise: the worker starts lean (no preload)');
    const w = worker();
    const payload = makePayload(model.url, { turn: { messages: [{ role: 'user', text: 'hang please', ts: 1 }] } });
    const chunk = Buffer.concat([
      Buffer.from(spawnFrame(payload)),
      Buffer.from(encodeFrame({ type: 'ping', seq: 9 })),
      Buffer.from(encodeFrame({ type: 'cancel', reason: 'test' })),
    ]);
    w.child.stdin.write(chunk);
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.ok(done.type === 'turn_done' && done.turn.status === 'cancelled', 'the cancel ended the turn it followed');
    assert.notEqual(await w.exit(), null, 'the process exited');
    assert.deepEqual(
      w.frames.map((f) => f.type).filter((t) => t !== 'event'),
      ['pong', 'ready', 'usage', 'turn_done'],
    );
  });

  it('a first frame that is not a spawn (nor a ping), or a wrong version, exits 2', async () => {
    const a = worker();
    a.child.stdin.write(encodeFrame({ type: 'cancel', reason: 'too early' }));
    assert.equal(await a.exit(), 2);
    const b = worker();
    b.child.stdin.write(encodeFrame({ type: 'spawn', ...makePayload(model.url), version: 999 }));
    assert.equal(await b.exit(), 2);
    assert.match(b.stderr(), /protocol version 999/);
  });
  it('a budget refusal from the supervisor ends the turn refused with exit 5, before any model call', async () => {
    const w = worker();
    const before = model.requests.length;
    w.child.stdin.write(spawnFrame(makePayload(model.url, { turn: { budget_admission: true } })));
    const ask = await w.waitFor((f) => f.type === 'budget_request');
    assert.ok(ask.type === 'budget_request' && ask.estimate > 4096);
    const grant = { type: 'budget_grant', id: ask.id, ok: false, wait_ms: 0, reason: 'refused: over quota' };
    w.child.stdin.write(encodeFrame(grant));
    const done = await w.waitFor((f) => f.type === 'turn_done');
    assert.equal(await w.exit(), 5, w.stderr());
    assert.ok(done.type === 'turn_done');
    assert.equal(done.turn.status, 'refused');
    assert.equal(done.turn.error, 'budget: refused: over quota');
    assert.equal(model.requests.length, before, 'no model call was made');
  });
});
