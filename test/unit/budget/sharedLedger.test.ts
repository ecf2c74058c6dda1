// The ledger over a shared budget window (issue 19 review item 4): a flush that fails after an admission re-based
// this process's baseline on the fleet's counts must not put the older baseline back, or the next flush adds the
// other replicas' spend a second time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetLedger } from '../../../src/budget/ledger.js';
import type { BudgetCounter } from '../../../src/domain/budget.js';
import { silentLogger } from '../../../src/obs/log.js';
import type { BudgetPort } from '../../../src/store/budgetPort.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import { compileIn, tempDir, writeConfig } from '../config/configFiles.js';

const NOW = Date.UTC(2024, 0, 3, 12, 0, 0);
const usage = (tokens: number) => ({ input_tokens: tokens, output_tokens: 0 });

function config() {
  const dir = tempDir();
  const yaml = 'intelligence:\n  budget: {windows: [{per: hour, tokens: 100000}]}\n';
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', yaml)] });
}

describe('BudgetLedger over a shared window', () => {
  it('a flush failing after the admission re-based its baseline does not count the fleet twice', async () => {
    const store = new MemoryStore();
    const inner = store.budget;
    let failAdds = false;
    let duringReserve = () => {};
    const shared: BudgetPort = {
      load: () => inner.load(),
      add: (deltas, holds) => (failAdds ? Promise.reject(new Error('connection lost')) : inner.add(deltas, holds)),
      reserve: async (req) => {
        duringReserve();
        const counters = await inner.load();
        const holds = req.decide(counters, []);
        return { counters, reserved: holds !== null };
      },
      renew: async () => {},
    };
    Object.defineProperty(store, 'budget', { value: shared });
    const ledger = new BudgetLedger({ config: config(), store, log: silentLogger, now: () => NOW });
    await ledger.load();
    const hour = (rows: BudgetCounter[]) => rows.find((r) => r.scope === 'instance' && r.window !== 'lifetime');

    ledger.charge('c1', null, usage(100));
    ledger.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const stored = hour(await inner.load());
    assert.ok(stored, 'the first flush stored the window');
    // Another replica spends 1,000 meanwhile; a spend here lands while the window is read, and its flush fails.
    duringReserve = () => {
      void inner.add([{ ...stored, tokens: 1_000, requests: 0 }]);
      ledger.charge('c1', null, usage(50));
      failAdds = true;
    };
    await ledger.admitShared('c1', null, 10);
    await new Promise((resolve) => setImmediate(resolve));
    failAdds = false;
    const before = hour(await inner.load())?.tokens ?? 0;
    ledger.charge('c1', null, usage(1));
    ledger.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const after = hour(await inner.load())?.tokens ?? 0;
    assert.equal(after - before, 1, `the next flush adds only the new spend (added ${after - before})`);
  });
});
