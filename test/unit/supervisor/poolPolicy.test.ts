import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  afterTurn,
  demandPreload,
  holdsStaleMcp,
  mayReuse,
  nextPeak,
  preloadsTurn,
  sparePreloads,
  spareTarget,
} from '../../../src/supervisor/poolPolicy.js';

const limits = { maxTurns: 3, maxRssBytes: 100 };
const idle = { served: 1, rssBytes: 50, ending: false, poolClosed: false };

describe('mayReuse', () => {
  it('lets a worker stay until its last allowed turn, and never with worker_max_turns 1', () => {
    assert.deepEqual(
      [0, 1, 2].map((served) => mayReuse(served, limits)),
      [true, true, false],
    );
    assert.equal(mayReuse(0, { ...limits, maxTurns: 1 }), false);
  });
});

describe('afterTurn', () => {
  it('reuses a worker under both limits', () => {
    assert.deepEqual(afterTurn(idle, limits), { kind: 'reuse' });
  });

  it('recycles a worker whose turn was being ended, past its turns or its memory, or when the pool closed', () => {
    assert.equal(afterTurn({ ...idle, ending: true }, limits).kind, 'recycle');
    assert.equal(afterTurn({ ...idle, poolClosed: true }, limits).kind, 'recycle');
    assert.deepEqual(afterTurn({ ...idle, served: 3 }, limits), { kind: 'recycle', reason: 'served 3 turns' });
    assert.equal(afterTurn({ ...idle, rssBytes: 101 }, limits).kind, 'recycle');
    assert.equal(afterTurn({ ...idle, rssBytes: 100 }, limits).kind, 'reuse');
  });

  it('recycles a worker keeping an MCP connection a reload made stale', () => {
    assert.deepEqual(afterTurn({ ...idle, staleMcp: true }, limits), {
      kind: 'recycle',
      reason: 'its MCP servers changed',
    });
    assert.deepEqual(afterTurn({ ...idle, staleMcp: false }, limits), { kind: 'reuse' });
  });
});

describe('holdsStaleMcp', () => {
  it('is true when a spec the worker holds is no longer configured as it was', () => {
    const inForce = new Set(['{"name":"a"}', '{"name":"b","x":2}']);
    assert.equal(holdsStaleMcp(new Set(), inForce), false);
    assert.equal(holdsStaleMcp(new Set(['{"name":"a"}']), inForce), false);
    assert.equal(holdsStaleMcp(new Set(['{"name":"a"}', '{"name":"b","x":1}']), inForce), true);
    assert.equal(holdsStaleMcp(new Set(['{"name":"c"}']), inForce), true);
  });
});

describe('nextPeak', () => {
  it('rises at once and falls to the current count only after the window', () => {
    const peak = nextPeak({ value: 0, at: 0 }, 5, 1_000, 30_000);
    assert.deepEqual(peak, { value: 5, at: 1_000 });
    assert.deepEqual(nextPeak(peak, 1, 20_000, 30_000), peak);
    assert.deepEqual(nextPeak(peak, 1, 31_001, 30_000), { value: 1, at: 31_001 });
  });
});

describe('spareTarget', () => {
  it('follows the recent peak of parallel children, at least the base, at most max_parallel_turns', () => {
    assert.equal(spareTarget({ base: 1, peak: 0, live: 0, max: 16 }), 1);
    assert.equal(spareTarget({ base: 1, peak: 16, live: 0, max: 16 }), 16);
    assert.equal(spareTarget({ base: 1, peak: 16, live: 12, max: 16 }), 4);
    assert.equal(spareTarget({ base: 1, peak: 40, live: 0, max: 16 }), 16);
    assert.equal(spareTarget({ base: 0, peak: 0, live: 0, max: 4 }), 0);
  });
});

describe('sparePreloads', () => {
  /** A `worker_max_turns` that reuses workers. */
  const REUSED = 100;
  const plain = { endpoints: ['http://127.0.0.1:11434/v1'], dialect: 'openai', providers: {} };

  it('leaves TLS out of spares when every model connection is plain http', () => {
    assert.deepEqual(sparePreloads(plain, 0, REUSED), []);
    assert.deepEqual(sparePreloads({ ...plain, endpoints: [] }, 0, REUSED), []);
  });

  it('preloads TLS for an https endpoint, a provider’s included, and for Bedrock', () => {
    assert.deepEqual(sparePreloads({ ...plain, endpoints: ['https://api.openai.com/v1'] }, 0, REUSED), ['tls']);
    const provider = { endpoints: ['https://api.anthropic.com'], dialect: 'anthropic' };
    assert.deepEqual(sparePreloads({ ...plain, providers: { a: provider } }, 0, REUSED), ['tls']);
    assert.deepEqual(sparePreloads({ ...plain, endpoints: [], dialect: 'bedrock' }, 0, REUSED), ['tls']);
  });

  it('preloads the MCP client when MCP servers are configured', () => {
    assert.deepEqual(sparePreloads(plain, 2, REUSED), ['mcp']);
    assert.deepEqual(sparePreloads({ ...plain, endpoints: ['https://x.example/v1'] }, 1, REUSED), ['mcp', 'tls']);
  });

  it('preloads a turn’s modules only when every turn gets a fresh worker (worker_max_turns: 1)', () => {
    assert.deepEqual(sparePreloads(plain, 0, 1), ['turn']);
    assert.deepEqual(sparePreloads(plain, 1, 1), ['turn', 'mcp']);
    assert.deepEqual(sparePreloads(plain, 0, 2), []);
  });
});

describe('demandPreload', () => {
  it('adds the turn preload to what the base spares load, once', () => {
    assert.equal(demandPreload(undefined), 'turn');
    assert.equal(demandPreload(''), 'turn');
    assert.equal(demandPreload('mcp,tls'), 'turn,mcp,tls');
    assert.equal(demandPreload('turn,mcp'), 'turn,mcp');
  });
});

describe('preloadsTurn', () => {
  it('preloads past the base, and a base spare while turns run or a peak holds; lean only when idle', () => {
    assert.equal(preloadsTurn({ index: 0, base: 1, peak: 0, live: 0 }), false);
    assert.equal(preloadsTurn({ index: 0, base: 1, peak: 0, live: 1 }), true);
    assert.equal(preloadsTurn({ index: 0, base: 1, peak: 2, live: 0 }), true);
    assert.equal(preloadsTurn({ index: 1, base: 1, peak: 0, live: 0 }), true);
  });
});
