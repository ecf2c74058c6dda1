import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetLedger } from '../../../src/budget/ledger.js';
import { silentLogger } from '../../../src/obs/log.js';
import { liveConfig } from '../../../src/runtime/liveConfig.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { compileIn, tempDir, writeConfig } from '../config/configFiles.js';

const NOW = Date.UTC(2024, 0, 3, 12, 0, 0);

function config(yaml: string) {
  const dir = tempDir();
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', yaml)] });
}

const YAML = [
  'intelligence:',
  '  budget: {windows: [{per: hour, tokens: 10000}]}',
  'agent:',
  '  conversation_budget: {windows: [{per: day, tokens: 5000}], on_exhausted: refuse}',
  'a2a:',
  '  principals:',
  '    - {id: bob, role: user, match: {any: true}, quotas: {budget: {lifetime_tokens: 2000}}}',
].join('\n');

describe('BudgetLedger', () => {
  it('checks the principal, then the conversation, then the instance; root has no conversation scope', () => {
    const ledger = new BudgetLedger({
      config: config(YAML),
      store: new MemoryStore(),
      log: silentLogger,
      now: () => NOW,
    });
    assert.equal(ledger.active, true);
    assert.deepEqual(
      ledger.scopesFor('c1', 'user:bob').map((s) => s.name),
      ['principal:user:bob', 'conversation:c1', 'instance'],
    );
    assert.deepEqual(
      ledger.scopesFor('root', 'operator').map((s) => s.name),
      ['instance'],
    );
    assert.equal(ledger.admitDispatch('c1', 'user:bob', 2500).admission.kind, 'fail', 'the lifetime quota fails');
    assert.equal(ledger.admitDispatch('c1', 'operator', 6000).admission.kind, 'refuse', 'the conversation refuses');
    // A per-call no says which it is, so the worker ends `refused` or `exhausted_tokens` without reading the text.
    assert.equal(ledger.admitCall('c1', 'operator', 6000, null).refused, true);
    assert.equal(ledger.admitCall('c1', 'user:bob', 2500, null).refused, false);
  });

  it('restores counters of the current bucket from the store and ignores an older bucket', async () => {
    const store = new MemoryStore();
    const cfg = config('intelligence:\n  budget: {windows: [{per: hour, tokens: 10000}], lifetime_tokens: 50000}\n');
    const first = new BudgetLedger({ config: cfg, store, log: silentLogger, now: () => NOW });
    await first.load();
    first.charge('c1', null, { input_tokens: 3000, output_tokens: 500 });
    first.flush();
    const again = new BudgetLedger({ config: cfg, store, log: silentLogger, now: () => NOW + 60_000 });
    await again.load();
    const scope = again.scopesFor('c1', null)[0];
    assert.equal(scope?.windows[0]?.tokens, 3500);
    assert.equal(scope?.lifetime, 3500);
    const nextHour = new BudgetLedger({ config: cfg, store, log: silentLogger, now: () => NOW + 3_600_000 });
    await nextHour.load();
    const later = nextHour.scopesFor('c1', null)[0];
    assert.equal(later?.windows[0]?.tokens, 0, 'a new bucket starts empty');
    assert.equal(later?.lifetime, 3500, 'the lifetime count carries on');
  });

  it('flushes increments: two ledgers over one store both count (no last writer wins)', async () => {
    const store = new MemoryStore();
    const cfg = config('intelligence:\n  budget: {windows: [{per: hour, tokens: 10000}], lifetime_tokens: 50000}\n');
    const one = new BudgetLedger({ config: cfg, store, log: silentLogger, now: () => NOW });
    const two = new BudgetLedger({ config: cfg, store, log: silentLogger, now: () => NOW });
    await one.load();
    await two.load();
    one.charge('c1', null, { input_tokens: 3000, output_tokens: 0 });
    two.charge('c1', null, { input_tokens: 1000, output_tokens: 0 });
    one.flush();
    two.flush();
    one.charge('c1', null, { input_tokens: 500, output_tokens: 0 });
    one.flush();
    one.flush();
    await store.close();
    const lifetime = (await store.budget.load()).find((c) => c.window === 'lifetime');
    assert.equal(lifetime?.tokens, 4500, 'each ledger added only what it counted since its last flush');
  });

  it('per-call grants: ok, or the reason', () => {
    const cfg = config('intelligence:\n  budget: {windows: [{per: second, tokens: 1000}]}\n');
    const ledger = new BudgetLedger({ config: cfg, store: new MemoryStore(), log: silentLogger, now: () => NOW + 10 });
    assert.deepEqual(ledger.admitCall('c1', null, 500, null), { ok: true, wait_ms: 0 });
    // A call bigger than the whole window can never be admitted by waiting: it gets the reason at once.
    assert.deepEqual(ledger.admitCall('c1', null, 5000, null), {
      ok: false,
      wait_ms: 0,
      reason: 'budget too small (instance second window): an estimate of 5000 tokens exceeds its cap of 1000',
      refused: false,
    });
    // What fits the window but not what is left of it waits for the reset (clamped to at least 100 ms).
    ledger.charge('c1', null, { input_tokens: 900, output_tokens: 0 });
    assert.deepEqual(ledger.admitCall('c1', null, 500, null), { ok: false, wait_ms: 990 });
    const failing = config('intelligence:\n  budget: {lifetime_tokens: 10}\n');
    const strict = new BudgetLedger({ config: failing, store: new MemoryStore(), log: silentLogger, now: () => NOW });
    assert.deepEqual(strict.admitCall('c1', null, 50, null), {
      ok: false,
      wait_ms: 0,
      reason: 'lifetime token budget exhausted (instance)',
      refused: false,
    });
  });

  it('a per-call degrade grants the wire id of the degrade alias', () => {
    const cfg = config(
      [
        'intelligence:',
        '  models: {small: {model: wire-small}}',
        '  budget: {lifetime_tokens: 100, windows: [{per: hour, tokens: 10}], on_exhausted: degrade, degrade: {model: small}}',
      ].join('\n'),
    );
    const ledger = new BudgetLedger({ config: cfg, store: new MemoryStore(), log: silentLogger, now: () => NOW });
    assert.deepEqual(ledger.admitCall('c1', null, 50, null), { ok: true, wait_ms: 0, model: 'wire-small' });
  });

  // A reload swaps the live config under the ledger (interfaces §3.6). Before the ledger compared a scope's policy
  // with the config in force, the first scope built kept its first settings: the lowered budget still admitted.
  it('a reload that lowers the instance budget refuses what the old one admitted', () => {
    const budget = (tokens: number) =>
      config(`intelligence:\n  budget: {windows: [{per: hour, tokens: ${tokens}}], on_exhausted: refuse}\n`);
    const live = liveConfig(budget(10_000));
    const ledger = new BudgetLedger({ config: live.view, store: new MemoryStore(), log: silentLogger, now: () => NOW });
    ledger.charge('c1', null, { input_tokens: 6000, output_tokens: 0 });
    assert.equal(ledger.admitDispatch('c1', null, 3000).admission.kind, 'ok', 'premise: 9000 of 10000 fits');
    live.swap(budget(8000));
    const scope = ledger.scopesFor('c1', null)[0];
    assert.equal(scope?.windows[0]?.tokens, 6000, 'the counts carry over to the new policy');
    assert.equal(scope?.windows[0]?.reserved, 3000, 'and so does the running reservation');
    assert.equal(ledger.admitDispatch('c1', null, 1000).admission.kind, 'refuse', '10000 of 8000 does not');
    live.swap(budget(8000));
    assert.equal(ledger.scopesFor('c1', null)[0], scope, 'an equal policy keeps the scope');
  });

  // Before load() read the counters without a budget at start, a budget a reload added counted from zero.
  it('a budget added by reload counts on from the stored counters', async () => {
    const store = new MemoryStore();
    const withBudget = config(
      'intelligence:\n  budget: {windows: [{per: hour, tokens: 10000}], lifetime_tokens: 50000}\n',
    );
    const earlier = new BudgetLedger({ config: withBudget, store, log: silentLogger, now: () => NOW });
    earlier.charge('c1', null, { input_tokens: 4000, output_tokens: 0 });
    earlier.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const live = liveConfig(config('agent:\n  preflight: never\n'));
    const ledger = new BudgetLedger({ config: live.view, store, log: silentLogger, now: () => NOW + 60_000 });
    await ledger.load();
    assert.equal(ledger.active, false, 'premise: no budget at start');
    live.swap(withBudget);
    const scope = ledger.scopesFor('c1', null)[0];
    assert.equal(scope?.windows[0]?.tokens, 4000);
    assert.equal(scope?.lifetime, 4000);
  });
});
