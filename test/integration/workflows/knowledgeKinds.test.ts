// The knowledge kinds over the real engine and SQLite (producers reference §2.4, §2.8): `knowledge.search` and
// `knowledge.get` call the knowledge route with the rendered arguments and output its result; a tool error or a
// missing route fails the step with the tool's name; load refuses what the kinds cannot call.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import type { StepPorts } from '../../../src/workflows/nodeKind.js';
import { openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
after(() => tmp.remove());
let n = 0;
const freshDir = (): string => `${tmp.dir}/life-${++n}`;

const DOC = {
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    q: { kind: 'knowledge.search', depends_on: 's', query: 'about {{inputs.topic}}', top_k: 2 },
    g: { kind: 'knowledge.get', depends_on: 'q', uri: '{{steps.q.output.hits.0.uri}}' },
    f: { kind: 'finish', depends_on: 'g', output: '{{steps.g.output.text}}' },
  },
};

async function runWith(knowledge?: StepPorts['knowledge']) {
  const life = await openDesk(freshDir(), [DOC], knowledge ? { knowledge } : {});
  try {
    const got = await life.desk.start({
      workflow: 'w',
      startKey: 'k',
      inputs: { topic: 'cats' },
      principal: null,
      conversation: null,
    });
    assert.ok(got.ok);
    return await settled(life, got.run.id);
  } finally {
    await life.close();
  }
}

describe('knowledge kinds', () => {
  it('search then get: the rendered arguments reach the route, the results are the outputs', async () => {
    const calls: Array<[string, unknown]> = [];
    const run = await runWith(async (tool, args) => {
      calls.push([tool, args]);
      return tool === 'knowledge.search'
        ? { result: { hits: [{ title: 'Cats', uri: 'kb://cats', snippet: 'meow' }] }, is_error: false }
        : { result: { uri: args['uri'], text: 'Cats purr.' }, is_error: false };
    });
    assert.equal(run.status, 'completed', String(run.error));
    assert.equal(run.output, 'Cats purr.');
    assert.deepEqual(calls, [
      ['knowledge.search', { query: 'about cats', top_k: 2 }],
      ['knowledge.get', { uri: 'kb://cats' }],
    ]);
  });

  it("fails the step with the tool's error, and without a route says what to configure", async () => {
    const broken = await runWith(async () => ({ result: 'index offline', is_error: true }));
    assert.equal(broken.status, 'failed');
    assert.equal(broken.error, 'step "q" failed: knowledge.search: index offline');
    const none = await runWith(async () => null);
    assert.equal(
      none.error,
      'step "q" failed: knowledge.search: no knowledge server answers it (set knowledge.server or tools.overrides.knowledge.search)',
    );
  });

  it('refuses at load a get with neither id nor uri, a bad top_k and filters that are not a mapping', () => {
    const got = loadWorkflow({
      name: 'w',
      steps: {
        s: { kind: 'manual' },
        q: { kind: 'knowledge.search', depends_on: 's', query: 'x', top_k: 0, filters: [1] },
        g: { kind: 'knowledge.get', depends_on: 'q' },
        f: { kind: 'finish', depends_on: 'g' },
      },
    });
    assert.deepEqual(got.ok ? [] : got.errors, [
      'workflow "w" step "q": knowledge.search.top_k must be an integer ≥ 1',
      'workflow "w" step "q": knowledge.search.filters must be a mapping',
      'workflow "w" step "g": knowledge.get needs id or uri',
    ]);
  });
});
