// A reload of agent.worker_max_turns, agent.worker_max_rss or agent.max_parallel_turns reaches the worker pool:
// it reads them through the live config at each use (interfaces §3.6), never a copy taken at start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileConfig } from '../../src/config/compile.js';
import type { Config } from '../../src/config/types.js';
import { silentLogger } from '../../src/obs/log.js';
import { liveConfig } from '../../src/runtime/liveConfig.js';
import type { Store } from '../../src/store/store.js';
import { type SupervisorOptions, workerPool } from '../../src/supervisor/supervisorOptions.js';
import type { WorkerHandle } from '../../src/supervisor/workerHandle.js';

const base = compileConfig({ files: [], env: {}, flags: {}, cwd: '/tmp' });
const withAgent = (agent: Partial<Config['agent']>): Readonly<Config> => ({
  ...base,
  agent: { ...base.agent, ...agent },
});

describe('workerPool after a reload', () => {
  it('applies the new worker_max_turns, worker_max_rss and max_parallel_turns to the next decision', () => {
    const live = liveConfig(withAgent({ worker_max_turns: 1, worker_max_rss: 1 << 30, max_parallel_turns: 2 }));
    const opts = { config: live.view, store: {} as Store, log: silentLogger, warmWorkers: 0 } as SupervisorOptions;
    const pool = workerPool(opts, silentLogger, () => 0);
    const fresh = { served: 0, mcpSpecs: new Set<string>() } as unknown as WorkerHandle;
    // Premise: under the first config a worker serves one turn and demand may call for two spares.
    assert.equal(pool.mayReuse(fresh), false);
    pool.noteDemand(8);
    pool.noteDemand(0);
    assert.equal(pool.target, 2);
    live.swap(withAgent({ worker_max_turns: 5, worker_max_rss: 1024, max_parallel_turns: 6 }));
    assert.equal(pool.mayReuse(fresh), true);
    assert.deepEqual(pool.afterTurn(fresh, 4096, false).kind, 'recycle');
    assert.equal(pool.target, 6);
    pool.close();
  });
});
