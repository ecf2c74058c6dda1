// An in-process supervisor over a real temporary SQLite store, real worker processes and the scripted model.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../../src/config/compile.js';
import { createLogger } from '../../src/obs/log.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import type { Playbook, ScriptedModel } from '../doubles/scriptedModel.js';
import { startScriptedModel } from '../doubles/scriptedModel.js';

export interface Rig {
  sup: Supervisor;
  store: Store;
  model: ScriptedModel;
  events: Array<Record<string, unknown>>;
  named(name: string): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startRig(playbook: Playbook, env: Record<string, string> = {}): Promise<Rig> {
  const model = await startScriptedModel(playbook);
  const dir = mkdtempSync(join(tmpdir(), 'agentd-int-'));
  const config = compileConfig({
    files: [],
    env: { AGENTD_STATE_DIR: dir, ...env },
    flags: { intelligence: model.url, model: 'test-model' },
    cwd: dir,
  });
  const store = openStore(config.store);
  const events: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (line) => events.push(JSON.parse(line)) });
  const sup = new Supervisor({ config, store, log });
  sup.restore();
  return {
    sup,
    store,
    model,
    events,
    named: (name) => events.filter((e) => e.event === name),
    close: async () => {
      await sup.drain(5_000);
      store.close();
      await model.close();
    },
  };
}
