// Workflow engine throughput over a real SQLite store: a linear run of 510 assigns (a definition holds at most 512
// top-level steps, a constant of reference §2.13, not a config limit), the 1,000-step linear run as a chain
// of two `subgraph` steps of 500 assigns each (body steps are not under the top-level cap), a chain of 200
// memory.set steps (each an effect: its `running` record is committed before the write), a `map` over 1,000 items,
// a `foreach` over 1,000 items (a two-step body, so 2,000 body steps) and an `iterate` of 1,000 iterations. Prints
// steps per second and run-record writes per step; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowRun } from '../src/domain/workflow.js';
import { silentLogger } from '../src/obs/log.js';
import { SqliteStore } from '../src/store/sqliteStore.js';
import { loadWorkflow } from '../src/workflows/definitions.js';
import { WorkflowDesk } from '../src/workflows/workflowDesk.js';

const STEPS = Number(process.env.BENCH_WORKFLOW_STEPS ?? 510);
const CHAINED = Number(process.env.BENCH_WORKFLOW_CHAINED ?? 1_000);
/** Assigns per subgraph in the chained run: under the 512-step cap with room to spare. */
const CHUNK = 500;
const MEMORY_STEPS = Number(process.env.BENCH_WORKFLOW_MEMORY_STEPS ?? 200);
const ITEMS = Number(process.env.BENCH_WORKFLOW_ITEMS ?? 1_000);

function linear(n: number): unknown {
  const steps: Record<string, unknown> = { s: { kind: 'manual' } };
  let prev = 's';
  for (let i = 0; i < n; i++) {
    steps[`a${i}`] = { kind: 'assign', depends_on: prev, writes: 'n', value: `CEL: ${i} + 1` };
    prev = `a${i}`;
  }
  steps['f'] = { kind: 'finish', depends_on: prev, output: '{{vars.n}}' };
  return { name: 'linear', steps };
}

/** `n` assigns in one line, `CHUNK` to a `subgraph` step, the subgraphs chained: n + ceil(n / CHUNK) steps run. */
function chained(n: number): unknown {
  const steps: Record<string, unknown> = { s: { kind: 'manual' } };
  let prev = 's';
  for (let g = 0; g * CHUNK < n; g++) {
    const body: Record<string, unknown> = {};
    let inner: string | undefined;
    for (let i = g * CHUNK; i < Math.min(n, (g + 1) * CHUNK); i++) {
      body[`a${i}`] = { kind: 'assign', ...(inner ? { depends_on: inner } : {}), writes: 'n', value: `CEL: ${i} + 1` };
      inner = `a${i}`;
    }
    steps[`g${g}`] = { kind: 'subgraph', depends_on: prev, body };
    prev = `g${g}`;
  }
  steps['f'] = { kind: 'finish', depends_on: prev, output: '{{vars.n}}' };
  return { name: 'chained', steps };
}

function memoryChain(n: number): unknown {
  const steps: Record<string, unknown> = { s: { kind: 'manual' } };
  let prev = 's';
  for (let i = 0; i < n; i++) {
    steps[`m${i}`] = { kind: 'memory.set', depends_on: prev, key: `bench.k${i % 16}`, value: i };
    prev = `m${i}`;
  }
  steps['f'] = { kind: 'finish', depends_on: prev, output: n };
  return { name: 'memory', steps };
}

const mapped = {
  name: 'mapped',
  steps: {
    s: { kind: 'manual' },
    m: { kind: 'map', depends_on: 's', over: '{{inputs.items}}', expr: 'item * 10' },
    f: { kind: 'finish', depends_on: 'm', output: 'CEL: size(steps.m.output)' },
  },
};

const each = {
  name: 'each',
  steps: {
    s: { kind: 'manual' },
    x: {
      kind: 'foreach',
      depends_on: 's',
      over: '{{inputs.items}}',
      body: {
        a: { kind: 'template', value: 'CEL: item * 10' },
        b: { kind: 'template', depends_on: 'a', value: 'CEL: steps.a.output + 1' },
      },
    },
    f: { kind: 'finish', depends_on: 'x', output: 'CEL: size(steps.x.output)' },
  },
};

const loop = {
  name: 'iterate',
  steps: {
    s: { kind: 'manual' },
    x: {
      kind: 'iterate',
      depends_on: 's',
      until: 'result >= inputs.n',
      body: { a: { kind: 'template', value: 'CEL: iteration + 1' } },
    },
    f: { kind: 'finish', depends_on: 'x', output: '{{steps.x.output}}' },
  },
};

async function measure(doc: unknown, inputs: Record<string, unknown>, units: number, unit: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-wf-bench-'));
  const store = new SqliteStore(dir);
  let writes = 0;
  const save = store.workflows.saveRun.bind(store.workflows);
  store.workflows.saveRun = (run: WorkflowRun) => {
    writes += 1;
    return save(run);
  };
  const loaded = loadWorkflow(doc);
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  const desk = new WorkflowDesk({
    store,
    log: silentLogger,
    clock: Date.now,
    ports: { memory: store.memory, fetch, lookup: async () => [] },
    configured: [loaded.def],
    onRunEnded: () => {},
  });
  await desk.open();
  const started = process.hrtime.bigint();
  const got = await desk.start({
    workflow: loaded.def.name,
    inputs,
    startKey: 'bench',
    principal: null,
    conversation: null,
  });
  if (!got.ok) throw new Error(got.error);
  const run = await desk.wait(got.run.id, 600_000);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const steps = run?.stepsRun ?? 0;
  console.log(
    `${loaded.def.name.padEnd(7)} ${String(units).padStart(5)} ${unit}: ${run?.status} (output ${JSON.stringify(run?.output)}) in ${seconds.toFixed(2)} s — ` +
      `${(steps / seconds).toFixed(0)} steps/s, ${(units / seconds).toFixed(0)} ${unit}/s, ` +
      `${(writes / Math.max(1, steps)).toFixed(2)} run-record writes per step (${writes} writes, ${steps} steps)`,
  );
  await desk.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await measure(linear(STEPS), {}, STEPS, 'steps');
await measure(chained(CHAINED), {}, CHAINED, 'steps');
await measure(memoryChain(MEMORY_STEPS), {}, MEMORY_STEPS, 'steps');
await measure(mapped, { items: Array.from({ length: ITEMS }, (_, i) => i) }, ITEMS, 'items');
await measure(each, { items: Array.from({ length: ITEMS }, (_, i) => i) }, ITEMS, 'items');
await measure(loop, { n: ITEMS }, ITEMS, 'iterations');
