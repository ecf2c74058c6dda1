// `agentd answer` against a real daemon (interfaces reference §1.8): an answer the question's schema refuses exits 1
// with and without --json (the task's question says why: `agentd/question.rejected`); a fitting one exits 0.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { startDaemon } from '../daemon.js';
import { runAgentd, tempStateDir } from '../harness.js';
import { asking, gateYaml, OPERATOR_TOKEN } from '../humanGate.js';

const STEPS = [
  's: {kind: once}',
  'h: {kind: human, depends_on: s, question: "How many?", schema: {type: integer}, timeout: 5m}',
  'f: {kind: finish, depends_on: h, output: "{{steps.h.output}}"}',
];

describe('agentd answer', () => {
  let model: ScriptedModel | undefined;
  after(async () => model?.close());

  it('a refused answer exits 1 in both modes; a fitting one exits 0', async () => {
    model = await startScriptedModel({ turns: [] });
    const daemon = await startDaemon(tempStateDir(), gateYaml(model, 'count', STEPS), { OPERATOR_TOKEN });
    try {
      await waitUntil(() => asking(daemon.events).length > 0, 30_000, 'the question is asked');
      const task = String(asking(daemon.events)[0]);
      const env = { AGENTD_URL: daemon.url, AGENTD_TOKEN: OPERATOR_TOKEN };
      const plain = await runAgentd(['answer', task, 'ten'], { env });
      assert.equal(plain.code, 1, plain.stderr);
      assert.match(
        plain.stderr,
        /not taken; task .* asks again: How many\? \(previous answer rejected: must be integer\)/,
      );
      // Before, --json printed the re-asked task and exited 0.
      const json = await runAgentd(['answer', task, '{"n":1}', '--json'], { env });
      assert.equal(json.code, 1, json.stderr);
      const wire = JSON.parse(json.stdout) as { metadata: Record<string, { rejected?: string }> };
      assert.equal(wire.metadata['agentd/question']?.rejected, 'must be integer');
      const taken = await runAgentd(['answer', task, '7', '--json'], { env });
      assert.equal(taken.code, 0, taken.stderr);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });
});
