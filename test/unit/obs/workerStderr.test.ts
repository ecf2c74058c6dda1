// workerLine: a worker's event line is re-emitted as the same event with its fields; anything else is one capped
// `worker.stderr` event. forwardWorkerStderr: lines split across chunks, the last unterminated line, redaction.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, registerSecret } from '../../../src/obs/log.js';
import { forwardWorkerStderr, WORKER_LINE_CAP, workerLine } from '../../../src/obs/workerStderr.js';

describe('workerLine', () => {
  it("keeps a worker event's level, name and fields (its ts, pid and comp included)", () => {
    const line = '{"ts":"2026-01-01T00:00:00.000Z","level":"warn","event":"intel.retry","pid":7,"comp":"worker","n":2}';
    assert.deepEqual(workerLine(line, 7), {
      level: 'warn',
      event: 'intel.retry',
      fields: { ts: '2026-01-01T00:00:00.000Z', pid: 7, comp: 'worker', n: 2 },
    });
  });

  it('makes anything else one worker.stderr event, cut to the cap', () => {
    assert.deepEqual(workerLine('(node:7) Warning: something', 7), {
      level: 'warn',
      event: 'worker.stderr',
      fields: { worker_pid: 7, line: '(node:7) Warning: something' },
    });
    const long = workerLine('x'.repeat(WORKER_LINE_CAP * 3), 7);
    assert.equal(String(long?.fields.line).length, WORKER_LINE_CAP + '… [truncated]'.length);
    assert.equal(workerLine('{"level":"loud","event":"x"}', 7)?.event, 'worker.stderr', 'not a level');
    assert.equal(workerLine('[1,2]', 7)?.event, 'worker.stderr');
    assert.equal(workerLine('  ', 7), null);
  });
});

describe('forwardWorkerStderr', () => {
  it('re-emits lines split across chunks, the unterminated last one, with secrets redacted', async () => {
    registerSecret('sk-worker-stderr-secret-123');
    const lines: string[] = [];
    const stream = new PassThrough();
    const done = forwardWorkerStderr(stream, createLogger({ level: 'debug', write: (l) => lines.push(l) }), 9);
    stream.write('{"ts":"t","level":"info","event":"loop.st');
    stream.write('art","pid":9,"comp":"worker"}\nboom sk-worker-stderr-secret-123\n');
    stream.end('tail without newline');
    await done;
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      events.map((e) => [e.event, e.line ?? e.comp]),
      [
        ['loop.start', 'worker'],
        ['worker.stderr', 'boom [redacted]'],
        ['worker.stderr', 'tail without newline'],
      ],
    );
    assert.equal(events[0]?.ts, 't', "the worker's own timestamp");
  });
});
