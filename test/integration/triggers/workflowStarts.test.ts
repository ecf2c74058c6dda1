// Schedule and webhook start nodes over the real runtime (producers reference §3.4, §3.7, case P-25): the
// workflow desk is the FireTarget, so a firing starts a real run on the real A2A listener and a SQLite file.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { waitUntil } from '../wait.js';
import { daemon, doneOf, post, runsOf } from './startRig.js';

const HOOKS = `
workflows:
  - name: ci
    steps:
      hook: {kind: webhook, path: /hooks/ci, auth: {none: true}}
      f: {kind: finish, depends_on: [hook], output: "{{steps.hook.output.body.n}}"}
  - name: signed
    steps:
      hook: {kind: webhook, path: /hooks/signed, auth: {hmac: {secret: "{{secret:HOOK_SECRET}}"}}}
      f: {kind: finish, depends_on: [hook], output: "{{steps.hook.output.body.n}}"}
  - name: limited
    steps:
      hook: {kind: webhook, path: /hooks/limited, auth: {none: true}, rate: 1/1h, idempotency: false}
      f: {kind: finish, depends_on: [hook], output: "{{steps.hook.output.body.n}}"}
  - name: tick
    steps:
      s: {kind: schedule, every: 300ms}
      f: {kind: finish, depends_on: [s], output: "{{steps.s.output.scheduled_for}}"}
`;

describe('schedule and webhook start nodes start real runs', () => {
  it('P-25: one key twice is one run; a bad HMAC is 401 and starts nothing; 429 loses nothing accepted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-starts-'));
    // The secret reaches the route through compileConfig's env only (house rule 4), never process.env.
    const { runtime, url, events } = await daemon(dir, HOOKS, { HOOK_SECRET: 's3cret' });
    try {
      await waitUntil(() => events.some((e) => e['event'] === 'start.schedule.armed'), 10_000, 'armed');
      const first = await post(`${url}/hooks/ci`, '{"n": 7}', { 'Idempotency-Key': 'k1' });
      assert.equal(first.status, 202);
      assert.deepEqual(await first.json(), { status: 'accepted', workflow: 'ci' });
      const again = await post(`${url}/hooks/ci`, '{"n": 8}', { 'Idempotency-Key': 'k1' });
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), { status: 'duplicate', idempotency_key: 'k1' });
      await waitUntil(() => doneOf(events, 'ci').length === 1, 10_000, 'the ci run ended');
      assert.equal(runsOf(events, 'ci').length, 1, 'one run for one key');
      const run = await runtime.store.workflows.getRun(String(runsOf(events, 'ci')[0]?.['run']));
      assert.equal(run?.status, 'completed');
      assert.equal(run?.output, 7, "the first delivery's body reached the run");

      const body = '{"n": 1}';
      const bad = await post(`${url}/hooks/signed`, body, { 'X-Signature': 'sha256=00' });
      assert.equal(bad.status, 401);
      const good = createHmac('sha256', 's3cret').update(body).digest('hex');
      const signed = await post(`${url}/hooks/signed`, body, { 'X-Signature': `sha256=${good}` });
      assert.equal(signed.status, 202, 'premise: the route starts runs when signed');
      await waitUntil(() => doneOf(events, 'signed').length === 1, 10_000, 'the signed run ended');
      assert.equal(runsOf(events, 'signed').length, 1, 'the refused delivery started nothing');

      const burst = await Promise.all([1, 2, 3].map((n) => post(`${url}/hooks/limited`, `{"n": ${n}}`)));
      const codes = burst.map((r) => r.status).sort();
      assert.deepEqual(codes, [202, 429, 429]);
      await waitUntil(() => doneOf(events, 'limited').length === 1, 10_000, 'the accepted run ended');
      const limited = await runtime.store.workflows.getRun(String(runsOf(events, 'limited')[0]?.['run']));
      assert.equal(limited?.status, 'completed', 'the accepted delivery ran to its end');

      await waitUntil(() => doneOf(events, 'tick').length >= 2, 10_000, 'two scheduled runs ended');
      const ticks = runsOf(events, 'tick').length;
      const fired = events.filter((e) => e['event'] === 'start.fired' && e['trigger'] === 'tick.s').length;
      assert.ok(ticks >= 2 && ticks <= fired, 'each scheduled firing started at most one run');

      // Visible on /metrics (issue 17 item 6): deliveries by the status answered, firings by kind.
      const text = await runtime.supervisor.metrics.render();
      const count = (line: string) => Number(new RegExp(`^${line} (\\d+)$`, 'm').exec(text)?.[1] ?? -1);
      assert.equal(count('agentd_webhook_deliveries_total\\{outcome="202"\\}'), 3);
      assert.equal(count('agentd_webhook_deliveries_total\\{outcome="200"\\}'), 1);
      assert.equal(count('agentd_webhook_deliveries_total\\{outcome="401"\\}'), 1);
      assert.equal(count('agentd_webhook_deliveries_total\\{outcome="429"\\}'), 2);
      assert.equal(count('agentd_trigger_firings_total\\{kind="webhook"\\}'), 3);
      assert.ok(count('agentd_trigger_firings_total\\{kind="schedule"\\}') >= 2);
    } finally {
      await runtime.stop();
    }
  });

  it('webhook and signal starts of workflows created at run time fire at once; a deleted webhook is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-starts-'));
    const { runtime, url, events, workflows } = await daemon(dir, 'agent: {name: t}\n');
    try {
      // No workflow yet: the engine loads when asked (workflows/lazyWorkflows.ts).
      const desk = await workflows.open();
      assert.ok(desk);
      await desk.opened;
      const before = await post(`${url}/hooks/new`, '{}');
      assert.equal(before.status, 404, 'premise: no route before the create');
      const doc = {
        name: 'fresh',
        steps: {
          hook: { kind: 'webhook', path: '/hooks/new', auth: { none: true } },
          f: { kind: 'finish', depends_on: ['hook'], output: 'ok' },
        },
      };
      const loaded = loadWorkflow(doc);
      assert.ok(loaded.ok);
      await desk.define('fresh', doc, loaded.def);
      const hit = await post(`${url}/hooks/new`, '{}');
      assert.equal(hit.status, 202);
      await waitUntil(() => doneOf(events, 'fresh').length === 1, 10_000, 'the created workflow ran');
      await desk.define('fresh', null, null);
      assert.equal((await post(`${url}/hooks/new`, '{}')).status, 404, 'deleted: the route is gone');

      const onGo = loadWorkflow({
        name: 'ongo',
        steps: {
          s: { kind: 'signal', name: 'go', filter: 'CEL: payload.n > 1' },
          f: { kind: 'finish', depends_on: ['s'], output: '{{steps.s.output.payload.n}}' },
        },
      });
      assert.ok(onGo.ok);
      assert.equal(await desk.signal('go', { n: 2 }, 'k1'), 0, 'premise: no signal start before the create');
      await desk.define('ongo', { name: 'ongo' }, onGo.def);
      assert.equal(await desk.signal('go', { n: 2 }, 'k1'), 1, 'the real delivered count');
      assert.equal(await desk.signal('go', { n: 2 }, 'k1'), 0, 'a replayed signal starts nothing new');
      assert.equal(await desk.signal('go', { n: 0 }, 'k2'), 0, 'the filter refuses');
      await waitUntil(() => doneOf(events, 'ongo').length === 1, 10_000, 'the signalled run ended');
    } finally {
      await runtime.stop();
    }
  });

  it('P-24: a loop created at run time fires in the same life until `until`; event starts fire on its runs, never on their own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-starts-'));
    const { runtime, events, workflows } = await daemon(dir, 'agent: {name: t}\n');
    const define = async (doc: Record<string, unknown>) => {
      const loaded = loadWorkflow(doc);
      assert.ok(loaded.ok, loaded.ok ? '' : loaded.errors.join('; '));
      await workflows.desk?.define(String(doc['name']), doc, loaded.def);
    };
    try {
      await (await workflows.open())?.opened;
      const finish = (output: string) => ({ kind: 'finish', depends_on: ['s'], output });
      await define({
        name: 'reactor',
        steps: {
          s: { kind: 'event', on: 'workflow_finished', filter: "CEL: payload.workflow == 'looper'" },
          f: finish('{{steps.s.output.payload.run}}'),
        },
      });
      await define({
        name: 'echo',
        steps: { s: { kind: 'event', on: 'workflow.finished' }, f: finish('{{steps.s.output.payload.workflow}}') },
      });
      await define({
        name: 'looper',
        steps: {
          s: { kind: 'loop', interval: '10ms', until: 'CEL: last >= 3', max_iterations: 20 },
          f: finish('{{steps.s.output.iteration}}'),
        },
      });
      await waitUntil(() => events.some((e) => e['event'] === 'start.loop.stopped'), 10_000, 'the loop stopped');
      await waitUntil(() => doneOf(events, 'echo').length >= 6, 10_000, 'echo saw the looper and reactor runs');
      await new Promise((r) => setTimeout(r, 300)); // time for a self-retrigger to show, were there one
      assert.deepEqual(
        events.filter((e) => e['event'] === 'start.loop.stopped').map((e) => e['reason']),
        ['until'],
      );
      const looper = (await runtime.store.workflows.listRuns({})).filter((r) => r.workflow === 'looper');
      assert.deepEqual(
        looper.map((r) => r.output),
        [1, 2, 3],
      );
      assert.equal(runsOf(events, 'reactor').length, 3, 'one reactor run per looper run');
      // Without the own-run guard (startTriggers.ts runEnded) each echo run fires echo again: the count grows past 6.
      assert.equal(runsOf(events, 'echo').length, 6, 'echo never fires on its own runs');
    } finally {
      await runtime.stop();
    }
  });
});
