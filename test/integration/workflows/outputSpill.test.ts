// The output spill over the real engine and SQLite (producers reference §2.5, §2.13 `limits.inline_max_bytes`): an
// output over the bound is kept as the artifact `<run>/<step>/output.json`, the run record holds `{$artifact,
// size}`, later steps' templates and CEL see the value itself, and `artifact.get` reads it; an output its
// output_schema refuses fails on the value. Below the bound nothing changes.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { named, openDesk, runToEnd, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;

const BIG = 'x'.repeat(3000);
const doc = (big: Record<string, unknown> = {}) => ({
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    big: { kind: 'template', depends_on: 's', value: { text: BIG, n: 7 }, ...big },
    use: { kind: 'assign', depends_on: 'big', value: 'CEL: size(steps.big.output.text) + steps.big.output.n' },
    copy: { kind: 'template', depends_on: 'use', text: '{{steps.big.output.text}}' },
    read: { kind: 'artifact.get', depends_on: 'copy', id: '{{run.id}}/big/output.json' },
    f: {
      kind: 'finish',
      depends_on: 'read',
      output: {
        use: '{{steps.use.output}}',
        copied: 'CEL: size(steps.copy.output)',
        mime: '{{steps.read.output.mime}}',
      },
    },
  },
});

async function run(document: unknown, inlineMaxBytes: number) {
  const life = await openDesk(`${tmp.dir}/life-${++n}`, [document], { ports: { inlineMaxBytes } });
  try {
    const ended = await runToEnd(life);
    return { ended, events: life.events };
  } finally {
    await life.close();
  }
}

describe('output spill', () => {
  it('keeps an output over limits.inline_max_bytes as an artifact that later steps read through', async () => {
    const { ended, events } = await run(doc(), 1024);
    assert.equal(ended.status, 'completed', String(ended.error));
    const id = `${ended.id}/big/output.json`;
    const size = JSON.stringify({ text: BIG, n: 7 }).length;
    assert.deepEqual(ended.steps['big']?.output, { $artifact: id, size });
    assert.deepEqual(ended.output, { use: 3007, copied: 3000, mime: 'application/json' });
    const spilled = named(events, 'step.output.artifact').map((e) => [e['step'], e['artifact'], e['size']]);
    assert.deepEqual(spilled[0], ['big', id, size]);
    // The copy and the artifact read are over the bound too: spilled as well, and the finish read them back.
    assert.deepEqual(
      spilled.map(([step]) => step),
      ['big', 'copy', 'read'],
    );
    assert.equal(
      (ended.steps['copy']?.output as { $artifact?: string } | undefined)?.$artifact,
      `${ended.id}/copy/output.json`,
    );
  });

  it('leaves an output under the bound inline', async () => {
    const { read: _read, ...steps } = doc().steps;
    const inline = {
      name: 'w',
      steps: { ...steps, f: { kind: 'finish', depends_on: 'copy', output: '{{steps.use.output}}' } },
    };
    const { ended, events } = await run(inline, 65_536);
    assert.equal(ended.status, 'completed', String(ended.error));
    assert.equal(ended.output, 3007);
    assert.deepEqual(ended.steps['big']?.output, { text: BIG, n: 7 });
    assert.equal(named(events, 'step.output.artifact').length, 0);
  });

  it('fails an output its output_schema refuses on the value, not on the reference', async () => {
    const schema = { type: 'object', properties: { n: { type: 'string' } } };
    const { ended } = await run(doc({ output_schema: schema }), 1024);
    assert.equal(ended.status, 'failed');
    assert.match(String(ended.steps['big']?.error), /^output does not match output_schema: .*n/);
    const ok = await run(doc({ output_schema: { type: 'object', required: ['text'] } }), 1024);
    assert.equal(ok.ended.status, 'completed', String(ok.ended.error));
  });

  it('a `when` guard and iterate `while`/`until` see a spilled output as its value', async () => {
    const guarded = {
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        big: { kind: 'template', depends_on: 's', value: { text: BIG, n: 7 } },
        g: { kind: 'template', depends_on: 'big', when: 'steps.big.output.n == 7', value: 'ran' },
        f: { kind: 'finish', depends_on: 'g', output: '{{steps.g.output}}' },
      },
    };
    const when = await run(guarded, 1024);
    assert.equal(when.ended.status, 'completed', String(when.ended.error));
    assert.equal(when.ended.output, 'ran');
    const body = { step: { kind: 'template', value: { text: BIG, n: 'CEL: iteration' } } };
    const iterate = (field: Record<string, unknown>) => ({
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        x: { kind: 'iterate', depends_on: 's', max_iterations: 9, body, ...field },
        f: { kind: 'finish', depends_on: 'x', output: 'CEL: steps.x.output.n' },
      },
    });
    const until = await run(iterate({ until: 'result.n >= 2' }), 1024);
    assert.equal(until.ended.status, 'completed', String(until.ended.error));
    assert.equal(until.ended.output, 2);
    const whileRun = await run(iterate({ while: 'previous == null || previous.n < 3' }), 1024);
    assert.equal(whileRun.ended.status, 'completed', String(whileRun.ended.error));
    assert.equal(whileRun.ended.output, 3);
  });

  it("a value shaped like a reference to another artifact is not read back (only the run's own spills are)", async () => {
    const forged = {
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        c: { kind: 'artifact.create', depends_on: 's', name: 't', content: 'TOPSECRET3', sensitive: true },
        t: { kind: 'template', depends_on: 'c', value: { x: { $artifact: '{{steps.c.output.id}}', size: 1 } } },
        f: { kind: 'finish', depends_on: 't', output: '{{steps.t.output}}' },
      },
    };
    const { ended } = await run(forged, 1024);
    assert.equal(ended.status, 'completed', String(ended.error));
    assert.deepEqual(ended.output, { x: { $artifact: `${ended.id}/c`, size: 1 } });
  });
});
