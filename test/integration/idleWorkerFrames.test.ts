// An idle (detached) worker has no turn: a frame it sends must never be replayed into the next turn it is handed
// (maybe another conversation's). A real child process stands in for a worker that misbehaves while idle.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { UpFrame } from '../../src/protocol/frames.js';
import { type WorkerCallbacks, WorkerHandle } from '../../src/supervisor/workerHandle.js';
import { processGone, waitUntil } from './wait.js';

/** Answers every chunk it reads with a `ready` frame: a worker that talks whether or not it has a turn. */
const CHATTY = `
const enc = (f) => { const b = Buffer.from(JSON.stringify(f)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
process.stdin.on('data', () => process.stdout.write(enc({ type: 'ready' })));
process.stdin.on('end', () => process.exit(0));
`;

function recorder(): WorkerCallbacks & { frames: UpFrame[]; closed: boolean } {
  const r = {
    frames: [] as UpFrame[],
    closed: false,
    onFrame: (f: UpFrame) => r.frames.push(f),
    onClose: () => {
      r.closed = true;
    },
    onProtocolError: () => {},
  };
  return r;
}

describe('WorkerHandle of an idle worker', { timeout: 30_000 }, () => {
  it('drops a frame sent while idle, kills the worker and never hands it another turn', async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'agentd-idle-')), 'chatty.mjs');
    writeFileSync(script, CHATTY);
    const first = recorder();
    const handle = new WorkerHandle({ execPath: process.execPath, args: [script] }, first);
    handle.send({ type: 'ping', seq: 1 });
    // Premise: the worker does speak, and a bound turn hears it.
    await waitUntil(() => first.frames.length === 1, 10_000, 'the bound turn hears the frame');
    handle.detach();
    handle.send({ type: 'ping', seq: 2 });
    await waitUntil(() => processGone(handle.pid), 10_000, 'the stray worker is killed');
    assert.equal(handle.alive, false);
    const next = recorder();
    handle.attach(next);
    // Without the drop, attach replays the idle worker's `ready` into the next turn.
    assert.deepEqual(next.frames, []);
    assert.equal(first.frames.length, 1);
  });
});
