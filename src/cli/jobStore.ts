// What a one-shot job says about its store (reference §2.1: one-shot ⇒ no store unless the user names one): that
// it keeps none, and — since an earlier agentd kept `./.agentd` by default — that an existing one is not used.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jobStoreDefaulted } from '../config/compile.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';

/** Logs `store.none` for a job without a store, and `store.default_ignored` when `./.agentd` holds one. */
export function noteJobStore(config: Readonly<Config>, cwd: string, log: Logger): void {
  if (config.a2a.listen !== null || config.store.kind !== 'memory') return;
  if (!jobStoreDefaulted(config)) {
    log.info('store.none', { durable: false, kind: 'memory' });
    return;
  }
  log.info('store.none', { durable: false, name_one_with: ['store.path', 'AGENTD_STATE_DIR', '--state-dir'] });
  const old = join(cwd, '.agentd', 'agentd.db');
  if (existsSync(old)) {
    // Its memory, root history and pending messages would otherwise vanish from this job without a word.
    log.warn('store.default_ignored', { path: old, durable: false, use: '--state-dir .agentd' });
  }
}
