import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/obs/log.js';
import { Reactor } from '../../../src/supervisor/reactor.js';

describe('Reactor', () => {
  it('coalesces schedules into one step, then re-checks watches and wakes waiters', async () => {
    let steps = 0;
    let watched = 0;
    const reactor = new Reactor(() => steps++, createLogger({ level: 'error', write: () => {} }));
    reactor.watchers.add(() => watched++);
    const next = reactor.next();
    reactor.schedule();
    reactor.schedule();
    await next;
    assert.equal(steps, 1);
    assert.equal(watched, 1);
  });

  it('a step that throws is logged; watches and waiters still run; until() resolves once its condition holds', async () => {
    const lines: string[] = [];
    let n = 0;
    const reactor = new Reactor(
      () => {
        n++;
        if (n === 1) throw new Error('boom');
      },
      createLogger({ level: 'error', write: (line) => lines.push(line) }),
    );
    const done = reactor.until(() => n >= 2);
    reactor.schedule();
    await reactor.next().then(
      () => undefined,
      () => undefined,
    );
    reactor.schedule();
    await done;
    assert.equal(n, 2);
    assert.match(lines[0] ?? '', /"event":"loop.error".*boom/);
  });
});
