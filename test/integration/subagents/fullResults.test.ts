// A result over the 8 000-byte cap is kept whole in the store and read through subagent.result in pages, after a
// restart too, and pruned with its record; a subagent's limits.tokens bounds its whole subtree (reference §5
// item 24: store-and-reference results and the tree-token ceiling of RFC 0009).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { SUB, toolResults } from './subagentParts.js';

const WHOLE = `${'a'.repeat(8000)}${'b'.repeat(8000)}${'c'.repeat(4000)}`;
const read = (args: Record<string, unknown>) => ({ tool_calls: [{ name: 'subagent.result', arguments: args }] });

describe('a cut subagent result, kept whole', () => {
  it('answers the cut text with where the rest lies, and pages it from the store, across a restart', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'write a lot' } }] },
        read({ handle: 'sub-1', offset: 8000 }),
        read({ handle: 'sub-1', offset: 16000, run: 1 }),
        read({ handle: 'sub-1', run: 2 }),
        { content: 'read it' },
      ],
      match: [{ when_contains: SUB, content: WHOLE }],
    };
    const rig = await startRig(playbook);
    const dir = rig.dir;
    try {
      assert.equal((await answer(rig, 'root', 'go')).reply, 'read it');
      const [ran, second, third, stale] = toolResults(rig, 'root');
      assert.deepEqual(ran?.content, {
        handle: 'sub-1',
        status: 'completed',
        result: `${'a'.repeat(8000)}… [truncated]`,
        error: null,
        full_result: { bytes: 20000, run: 1, next_offset: 8000, read: 'subagent.result' },
      });
      const page = (m: typeof second) => m?.content as { text: string; offset: number; next_offset: number | null };
      assert.equal(page(second).text, 'b'.repeat(8000));
      assert.equal(page(second).next_offset, 16000);
      assert.equal(page(third).text, 'c'.repeat(4000));
      assert.equal(page(third).next_offset, null);
      assert.equal(stale?.content, 'subagent "sub-1": its stored result is result 1, not 2');
      assert.deepEqual(await rig.store.subagents.readResult('sub-1'), { run: 1, body: WHOLE }, 'stored whole');
    } finally {
      await rig.close();
    }

    const again = await startRig({ turns: [read({ handle: 'sub-1' }), { content: 'again' }] }, {}, { dir });
    try {
      assert.equal((await answer(again, 'later', 'go')).reply, 'again');
      const [first] = toolResults(again, 'later');
      const content = first?.content as { text: string; next_offset: number; bytes: number };
      assert.equal(content.text, 'a'.repeat(8000), 'read back from the store after the restart');
      assert.equal(content.next_offset, 8000);
      assert.equal(content.bytes, 20000);
    } finally {
      await again.close();
    }

    // subagents.keep 0: the restore prunes the ended record, and its whole result goes with it.
    const pruned = await startRig({ turns: [{ content: 'x' }] }, {}, { dir, yaml: 'subagents:\n  keep: 0\n' });
    try {
      assert.deepEqual(await pruned.store.subagents.list(), []);
      assert.equal(await pruned.store.subagents.readResult('sub-1'), null);
    } finally {
      await pruned.close();
    }
  });

  it('cuts a structured result over the cap as its JSON text and keeps it whole (premise: objects passed uncapped)', async () => {
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    const json = JSON.stringify({ text: 'x'.repeat(12_000) });
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'write json', output_schema: schema } }] },
        read({ handle: 'sub-1', offset: 8000 }),
        { content: 'read it' },
      ],
      match: [{ when_contains: SUB, content: json }],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).reply, 'read it');
      const [ran, rest] = toolResults(rig, 'root');
      assert.deepEqual(ran?.content, {
        handle: 'sub-1',
        status: 'completed',
        result: `${json.slice(0, 8000)}… [truncated]`,
        error: null,
        full_result: { bytes: json.length, run: 1, next_offset: 8000, read: 'subagent.result' },
      });
      assert.equal((rest?.content as { text?: string } | undefined)?.text, json.slice(8000));
    } finally {
      await rig.close();
    }
  });
});

describe('the subtree token ceiling', () => {
  it("stops a subagent whose subtree spent its limits.tokens, and caps its child's tokens to the remainder", async () => {
    const usage = (n: number) => ({ prompt_tokens: n, completion_tokens: 0 });
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'outer', limits: { tokens: 300 } } }] },
        { content: 'ok' },
      ],
      match: [
        { when_contains: '"content":"inner"', usage: usage(250), content: 'inner done' },
        {
          when_contains: '"content":"outer"',
          times: 1,
          usage: usage(100),
          tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'inner' } }],
        },
        // Premise: sub-1 itself spent 100 of its 300, so without the ceiling its next call ran and answered this.
        { when_contains: SUB, usage: usage(10), content: 'outer done' },
      ],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      const records = await rig.store.subagents.list();
      const outer = records.find((r) => r.handle === 'sub-1');
      const inner = records.find((r) => r.handle === 'sub-2');
      assert.equal(inner?.spec.limits.max_tokens, 200, 'the child may spend what is left of 300 after 100');
      assert.equal(outer?.status, 'exhausted_tokens');
      assert.equal(
        outer?.error,
        'budget: subtree token ceiling: sub-1 and its subagents spent 350 of limits.tokens = 300',
      );
      assert.equal(outer?.tree_tokens, 350);
      const outerCalls = rig.model.requests.filter((r) => JSON.stringify(r.body).includes('"content":"outer"'));
      assert.equal(outerCalls.length, 1, "sub-1's call after its child's was refused before it reached the model");
    } finally {
      await rig.close();
    }
  });
  it('gives each warm run a fresh ceiling, as it gives each run fresh limits', async () => {
    const call = (name: string, args: Record<string, unknown>) => ({
      delay_ms: 1_000,
      tool_calls: [{ name, arguments: args }],
    });
    const playbook: Playbook = {
      turns: [
        {
          tool_calls: [
            { name: 'subagent.run', arguments: { instruction: 'w', mode: 'warm', limits: { tokens: 100 } } },
          ],
        },
        call('subagent.send', { handle: 'sub-1', message: 'again' }),
        call('subagent.kill', { handle: 'sub-1' }),
        { content: 'ok' },
      ],
      match: [{ when_contains: SUB, usage: { prompt_tokens: 100, completion_tokens: 0 }, content: 'run answer' }],
    };
    const rig = await startRig(playbook, {}, { yaml: 'agent:\n  wake_on: [a2a_message]\n' });
    try {
      assert.equal((await answer(rig, 'root', 'go')).status, 'completed');
      // Premise: the first run spent all 100; a ceiling carried over refused the second run's model call.
      assert.deepEqual(
        rig.named('subagent.turn').map((e) => e.status),
        ['completed', 'completed'],
      );
    } finally {
      await rig.close();
    }
  });
});
