// A live workflow run is owned by one replica at a time (issue 19), over built daemons and a real PostgreSQL,
// lease TTL 2 s. A runs two runs, each sleeping (`sleep` steps of 10 s and 20 s). B starts while they sleep: it
// does not take them, and the first ends once, on A. Then A is SIGKILLed: B adopts the second once A's hold ran
// out, and it ends once, on B.
// Premise: before, B's restore loaded every live run in the shared store, so both replicas ran A's runs (each
// ended twice), and a run left by a dead replica was taken only by a replica started after it died.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor } from '../../integration/a2a/listenerHarness.js';
import { commandRequest } from '../../integration/triggers/startRig.js';
import { waitUntil } from '../../integration/wait.js';
import type { Daemon } from '../daemon.js';
import { replicaYaml, startReplicas } from './replicaFleet.js';

const WORKFLOWS = [
  'workflows:',
  '  - name: short',
  '    steps:',
  '      s: {kind: a2a, command: short}',
  '      nap: {kind: sleep, depends_on: [s], duration: 10s}',
  '      f: {kind: finish, depends_on: [nap], output: "short done"}',
  '  - name: long',
  '    steps:',
  '      s: {kind: a2a, command: long}',
  '      nap: {kind: sleep, depends_on: [s], duration: 20s}',
  '      f: {kind: finish, depends_on: [nap], output: "long done"}',
];

type Events = Daemon['events'];
const runOf = (events: Events, workflow: string) =>
  String(events.find((e) => e.event === 'run.start' && e.workflow === workflow)?.run);
const ends = (events: Events, run: string) => events.filter((e) => e.event === 'run.done' && e.run === run);
const touched = (events: Events, run: string) => events.filter((e) => e.run === run);

describe('workflow runs across replicas', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_runs');
    model = await startScriptedModel({ turns: [], match: [] });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('a run is driven by its owner only, and adopted once its owner died', { timeout: 120_000 }, async () => {
    const yaml = replicaYaml(model.url, '2s', WORKFLOWS);
    const [a] = (await startReplicas(url, yaml, 1, daemons)) as [Daemon];
    const client = await clientFor(a.url);
    await client.sendMessage(commandRequest('short', {}, 'short-1', true));
    await client.sendMessage(commandRequest('long', {}, 'long-1', true));
    const napping = (d: Daemon) => d.events.filter((e) => e.event === 'step.start' && e.step === 'nap').length;
    await waitUntil(() => napping(a) === 2, 20_000, 'both runs sleep on A');
    const [short, long] = [runOf(a.events, 'short'), runOf(a.events, 'long')];

    const [b] = (await startReplicas(url, yaml, 1, daemons)) as [Daemon];
    const dump = (err: unknown) => {
      process.stderr.write(`A:\n${a.stderr().slice(-3000)}\nB:\n${b.stderr().slice(-4000)}\n`);
      throw err;
    };
    assert.equal(ends(a.events, short).length, 0, 'B started while the short run still slept');
    await waitUntil(() => ends(a.events, short).length > 0, 20_000, 'the short run ends on A').catch(dump);
    await new Promise((r) => setTimeout(r, 1_500)); // B's claims run every second: time for a wrong one to show
    assert.deepEqual(touched(b.events, short), [], "B never drove A's short run");
    assert.deepEqual(touched(b.events, long), [], "B did not take A's live long run");
    assert.equal(ends(a.events, short).length, 1);

    a.child.kill('SIGKILL');
    await waitUntil(() => ends(b.events, long).length > 0, 40_000, 'B adopts and ends the long run').catch(dump);
    assert.ok(b.events.some((e) => e.event === 'lease.adopted' && e.run === long && Number(e.epoch) === 2));
    assert.equal(ends(b.events, long).length, 1, 'the long run ended once');
    assert.equal(ends(b.events, long)[0]?.status, 'completed');
    assert.equal(ends(a.events, long).length, 0, 'A never ended it');
  });
});

// A schedule's timer row is shared, so every replica fires each occurrence; the occurrence's start key
// (`schedule/<trigger>/<occurrence>`) is unique in the shared store, so one run starts per occurrence, on the
// replica whose start stored it first. A regression guard (it held before the ownership change too).
describe('a schedule across replicas', () => {
  let model: ScriptedModel;
  let url: string;
  const daemons: Daemon[] = [];
  before(async () => {
    url = await createTestDatabase('fleet_schedule');
    model = await startScriptedModel({ turns: [], match: [] });
  });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it('starts one run per occurrence in the fleet', { timeout: 90_000 }, async () => {
    const tick = ['workflows:', '  - name: tick', '    steps:', '      s: {kind: schedule, every: 1s}'];
    const yaml = replicaYaml(model.url, '2s', [...tick, '      f: {kind: finish, depends_on: [s], output: "t"}']);
    const [a, b] = (await startReplicas(url, yaml, 2, daemons)) as [Daemon, Daemon];
    const starts = () => [...a.events, ...b.events].filter((e) => e.event === 'run.start').map((e) => e.start_key);
    const fired = (d: Daemon) => d.events.some((e) => e.event === 'start.fired');
    await waitUntil(() => new Set(starts()).size >= 4 && fired(a) && fired(b), 30_000, 'both replicas fire 4 times');
    const keys = starts();
    assert.equal(new Set(keys).size, keys.length, `one run per occurrence: ${keys.join(', ')}`);
  });
});
