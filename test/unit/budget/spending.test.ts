// Spending: a turn's usage frames and its final settle reach the ledger once, cache tokens counted in the metrics
// and in what the turn was charged; cache writes reach the budget as input, cache reads never (docs/guide/budgets.md, Prompt-cache
// tokens).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Spending } from '../../../src/budget/spending.js';
import { silentLogger } from '../../../src/obs/log.js';
import { Metrics } from '../../../src/obs/metrics.js';
import { MemoryStore } from '../../../src/store/memoryStore.js';
import type { LiveTurn } from '../../../src/supervisor/turnWorkers.js';
import { compileIn, tempDir, writeConfig } from '../config/configFiles.js';

const NOW = Date.UTC(2024, 0, 3, 12, 0, 0);

function spending(): { spending: Spending; metrics: Metrics } {
  const dir = tempDir();
  const config = compileIn(dir, {
    files: [writeConfig(dir, 'a.yaml', 'intelligence:\n  budget: {lifetime_tokens: 100000}\n')],
  });
  const metrics = new Metrics();
  const deps = { config, store: new MemoryStore(), log: silentLogger, now: () => NOW, metrics };
  return { spending: new Spending({ ...deps, wake: () => {}, onRoom: () => {}, ownerOf: () => null }), metrics };
}

describe('Spending.settleTurn', () => {
  it('charges the rest once: input, output and cache writes; the turn is charged its cache counts too', async () => {
    const { spending: s, metrics } = spending();
    const turn = {
      job: { ctx: 'c1', principal: null },
      reservation: null,
      charged: { input_tokens: 0, output_tokens: 0 },
    };
    const live = turn as unknown as LiveTurn;
    s.turnUsage(live, { input_tokens: 10, output_tokens: 5, cache_read_tokens: 1000 });
    const final = { input_tokens: 30, output_tokens: 9, cache_read_tokens: 1000, cache_write_tokens: 50 };
    s.settleTurn(live, final);
    const lifetime = () => s.budget.scopesFor('c1', null).find((x) => x.name === 'instance')?.lifetime;
    // Premise: before cache writes were charged, the budget saw 39 (input and output alone) and a turn whose
    // every call wrote a cache spent on no budget at all.
    assert.equal(lifetime(), 30 + 9 + 50);
    // Premise: the delta computed field by field for input and output left the cache write out of `charged`.
    assert.deepEqual(turn.charged, final);
    s.settleTurn(live, final);
    assert.equal(lifetime(), 89, 'a second settle charges nothing');
    const text = await metrics.render();
    assert.match(text, /^agentd_tokens_total\{direction="cache_read",kind="turn"\} 1000$/m);
    assert.match(text, /^agentd_tokens_total\{direction="in",kind="turn"\} 10$/m);
  });

  it('charges a turn without a reservation that wrote a cache and read nothing new', () => {
    const { spending: s } = spending();
    const turn = {
      job: { ctx: 'c2', principal: null },
      reservation: null,
      charged: { input_tokens: 0, output_tokens: 0 },
    };
    s.settleTurn(turn as unknown as LiveTurn, {
      input_tokens: 0,
      output_tokens: 0,
      cache_write_tokens: 70,
      cache_read_tokens: 900,
    });
    assert.equal(
      s.budget.scopesFor('c2', null).find((x) => x.name === 'instance')?.lifetime,
      70,
      'reads are not charged',
    );
  });
});
