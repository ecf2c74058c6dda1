// An agent step with `output_schema` (producers reference §2.8, turn reference §12): the schema goes to the step's
// turn, which asks the model through its structured-output path (OpenAI `response_format: json_schema`) and
// re-asks a miss within the same turn; the turn's value is the step's output. Real worker, the scripted model.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { startRig } from '../harness.js';
import { waitUntil } from '../wait.js';

const YAML = `workflows:
  - name: w
    steps:
      s: {kind: once}
      a:
        kind: agent
        depends_on: s
        instruction: "Count the apples"
        output_schema: {type: object, required: [n], properties: {n: {type: integer}}}
      f: {kind: finish, depends_on: a, output: "{{steps.a.output}}"}
`;

describe('agent step output_schema', () => {
  it('is asked for through the response format and a miss is re-asked in the same turn', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'unscripted' }],
      match: [
        { when_contains: 'did not match the required schema', content: '{"n": 7}' },
        { when_contains: 'Count the apples', content: '{"apples": "seven"}' },
      ],
    };
    const rig = await startRig(playbook, {}, { yaml: YAML });
    try {
      await waitUntil(() => rig.named('run.done').length === 1, 30_000, 'the run ended');
      const [run] = await rig.store.workflows.listRuns({});
      assert.equal(run?.status, 'completed', String(run?.error));
      assert.deepEqual(run?.output, { n: 7 });
      const asked = rig.model.requests.filter((r) => JSON.stringify(r.body).includes('Count the apples'));
      assert.equal(asked.length, 2, 'the answer and one re-ask, in one turn');
      for (const req of asked) {
        const format = (req.body as { response_format?: { type: string; json_schema?: { schema: unknown } } })
          .response_format;
        assert.equal(format?.type, 'json_schema');
        assert.deepEqual(format?.json_schema?.schema, {
          type: 'object',
          required: ['n'],
          properties: { n: { type: 'integer' } },
        });
      }
      assert.equal(rig.named('turn.spawn').length, 1, 'one turn');
    } finally {
      await rig.close();
    }
  });
});
