// The operator command `reload` through TaskBackend (a real SQLite store; the runtime's reload is a stub): the
// operator gets the report as the task's result, another role is refused and nothing reloads, and a backend built
// without a reload refuses the command.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Principal } from '../../../src/a2a/backend.js';
import { TaskBackend } from '../../../src/a2a/taskBackend.js';
import { createLogger } from '../../../src/obs/log.js';
import type { SupervisorPort } from '../../../src/runtime/producer.js';
import type { ReloadReport } from '../../../src/runtime/reload.js';
import { openStore } from '../../../src/store/openStore.js';

const OPERATOR: Principal = { id: 'operator', role: 'operator', grants: [] };
const USER: Principal = { id: 'alice', role: 'user', grants: [] };
const RELOAD = { text: '', command: { op: 'reload', args: {} } };

function backendWith(reload?: () => ReloadReport) {
  const store = openStore({ kind: 'sqlite', path: mkdtempSync(join(tmpdir(), 'agentd-reloadcmd-')) });
  const backend = new TaskBackend({
    store,
    log: createLogger({ level: 'error', write: () => {} }),
    now: Date.now,
    drain: () => {},
    ...(reload ? { reload } : {}),
    supervisor: {} as SupervisorPort,
    accept: () => Promise.reject(new Error('no message is accepted here')),
  });
  backend.setListening(true);
  return { store, backend };
}

describe('the reload command', () => {
  it('is the operator’s: the task carries the report; another role is refused and nothing reloads', async () => {
    let reloads = 0;
    const report: ReloadReport = { result: 'applied', generation: 2, changed: ['intelligence.model'] };
    const { store, backend } = backendWith(() => {
      reloads++;
      return report;
    });
    try {
      await assert.rejects(backend.send(USER, RELOAD), /command "reload" is for the operator/);
      assert.equal(reloads, 0);
      const task = await backend.send(OPERATOR, RELOAD);
      assert.equal(task.state, 'completed');
      assert.deepEqual(JSON.parse(String(task.result)), report);
      assert.equal(reloads, 1);
    } finally {
      await store.close();
    }
  });

  it('is refused by a backend that was given no reload', async () => {
    const { store, backend } = backendWith();
    try {
      await assert.rejects(backend.send(OPERATOR, RELOAD), /this instance has no config sources/);
    } finally {
      await store.close();
    }
  });
});
