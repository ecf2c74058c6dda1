// The pressure gate through the built binary (issue 21, reference §4): the store on a small tmpfs whose free space
// is below store.min_free → pressure.shed, a sent message is accepted but no worker starts, /readyz is 503; the
// space returns → pressure.cleared and the queued turn runs. Needs to mount a tmpfs (root); skipped where it cannot.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TaskState } from '@a2a-js/sdk';
import { type ScriptedModel, startScriptedModel } from '../doubles/scriptedModel.js';
import { clientFor } from '../integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../integration/wait.js';
import { asTask, send, startDaemon } from './daemon.js';
import { eventsNamed, runAgentd, tempStateDir } from './harness.js';

/** A 48 MB tmpfs, or the reason there is none. */
function mountSmallFs(): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    return { skip: `cannot mount a tmpfs here: ${String((err as Error).message).split('\n')[0]}` };
  }
}

describe('pressure shedding in the daemon', () => {
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'space is back' }] });
  });
  after(async () => model.close());

  it('sheds while the store filesystem is short of store.min_free, and runs the queued turn once it is not', async (t) => {
    const fs = mountSmallFs();
    if ('skip' in fs) return t.skip(fs.skip);
    const filler = join(fs.dir, 'filler');
    writeFileSync(filler, Buffer.alloc(40 * 1024 * 1024));
    const yaml =
      'a2a:\n  listen: http://127.0.0.1:0\nagent:\n  preflight: never\nstore:\n  min_free: 16MB\n' +
      `observability:\n  metrics_addr: 127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
    const daemon = await startDaemon(fs.dir, yaml);
    try {
      const shed = daemon.events.find((e) => e.event === 'pressure.shed');
      assert.equal(shed?.cause, 'disk');
      assert.ok(Number(shed?.disk_free_bytes) < 16_000_000, 'the free bytes are logged');
      const metrics = `http://${daemon.events.find((e) => e.event === 'metrics.listen')?.addr}`;
      assert.equal((await fetch(`${metrics}/readyz`)).status, 503);
      assert.match(await (await fetch(`${metrics}/metrics`)).text(), /^agentd_pressure_level 2$/m);
      const client = await clientFor(daemon.url);
      const task = asTask(await within(client.sendMessage(send('anything left?', {}, true)), 10_000, 'accepted'));
      await new Promise((r) => setTimeout(r, 2_500));
      assert.equal(daemon.events.filter((e) => e.event === 'turn.spawn').length, 0, 'no worker starts');
      assert.equal(model.requests.length, 0);
      rmSync(filler);
      await waitUntil(() => daemon.events.some((e) => e.event === 'pressure.cleared'), 10_000, 'pressure.cleared');
      await waitUntil(() => daemon.events.some((e) => e.event === 'turn.spawn'), 10_000, 'the queued turn starts');
      const done = await within(
        (async () => {
          for (;;) {
            const now = await client.getTask({ tenant: '', id: task.id });
            if (now.status?.state === TaskState.TASK_STATE_COMPLETED) return now;
            await new Promise((r) => setTimeout(r, 100));
          }
        })(),
        20_000,
        'the task completes',
      );
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal((await fetch(`${metrics}/readyz`)).status, 200);
      assert.equal(daemon.events.filter((e) => e.event === 'pressure.shed').length, 1, 'logged once');
    } finally {
      assert.equal(await daemon.stop(), 0);
      execFileSync('umount', [fs.dir]);
    }
  });
});

describe('pressure in a one-shot job', () => {
  // Before a job's pressure held no turn, its prompt waited for a pressure.cleared that nothing would bring: the
  // run never ended (runAgentd's timeout fails the test).
  it('logs pressure.shed and still runs the prompt', async () => {
    const model = await startScriptedModel({ turns: [{ content: 'ran anyway' }] });
    try {
      const dir = tempStateDir();
      // More free space than any disk has: the store's filesystem is always short of it.
      writeFileSync(join(dir, 'agent.yaml'), 'store:\n  min_free: 9000000000000000\n');
      const args = ['--config', join(dir, 'agent.yaml'), '--intelligence', model.url, '--prompt', 'a job'];
      const run = await runAgentd(args, { env: { AGENTD_STATE_DIR: dir }, timeoutMs: 30_000 });
      assert.equal(eventsNamed(run, 'pressure.shed').length, 1, 'premise: the store is short of min_free');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'ran anyway\n');
    } finally {
      await model.close();
    }
  });
});
