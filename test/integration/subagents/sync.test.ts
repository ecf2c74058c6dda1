// Subagents over real worker processes and the scripted model: P-1 (sync delegation) and P-5 (distillation).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { answer, startRig } from '../harness.js';
import { waitUntil } from '../wait.js';
import { notes, SUB } from './subagentParts.js';

describe('subagent.run sync (P-1)', () => {
  it('parks the caller, answers {handle, status, result, error} and leaves the root note', async () => {
    const playbook: Playbook = {
      turns: [{ content: 'unused' }, { content: 'done' }],
      match: [
        { when_contains: SUB, content: '{"n":1}' },
        {
          when_contains: 'delegate it',
          times: 1,
          tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'count', mode: 'sync' } }],
        },
      ],
    };
    const rig = await startRig(playbook);
    try {
      const outcome = await answer(rig, 'root', 'delegate it');
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reply, 'done');
      const [spawn, ...more] = rig.named('subagent.spawn');
      assert.equal(more.length, 0, 'one spawn');
      assert.equal(spawn?.mode, 'sync');
      assert.equal(spawn?.depth, 1);
      const h = spawn?.handle as string;
      assert.match(h, /^sub-\d+$/);
      assert.deepEqual(
        rig.named('subagent.result').map((e) => e.status),
        ['completed'],
      );
      const root = rig.sup.conversation('root')?.messages ?? [];
      const tool = root.find((m) => m.role === 'tool' && m.name === 'subagent.run');
      assert.deepEqual(tool?.role === 'tool' ? tool.content : null, {
        handle: h,
        status: 'completed',
        result: { n: 1 },
        error: null,
      });
      await waitUntil(() => notes(rig.sup.conversation('root')?.messages).length > 0, 10_000, 'the note');
      assert.deepEqual(notes(rig.sup.conversation('root')?.messages), [`subagent ${h} completed: {"n":1}`]);
      const [stored] = await rig.store.subagents.list();
      assert.equal(stored?.status, 'completed');
      assert.ok((stored?.tokens.input_tokens ?? 0) > 0, 'the spend reached the record');
    } finally {
      await rig.close();
    }
  });
});

describe('subagent templates', () => {
  it('lists templates in the prompt and runs one by name with its params filled', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { template: 'count', params: { what: 'apples' } } }] },
        { content: 'counted' },
      ],
      match: [{ when_contains: SUB, content: '{"apples":3}' }],
    };
    const yaml =
      'subagents:\n  allow_freeform: false\n  templates:\n    count:\n      instruction: Count the {{what}}.\n' +
      '      params:\n        what: {type: string, required: true}\n';
    const rig = await startRig(playbook, {}, { yaml });
    try {
      assert.equal((await answer(rig, 'root', 'go')).reply, 'counted');
      const [rootRequest] = rig.model.requests.map((r) => JSON.stringify(r.body));
      assert.ok(rootRequest?.includes('## Subagent templates (spawn with subagent.run {template, params})'));
      assert.ok(rootRequest?.includes('- count(what: string)'));
      const subRequest = rig.model.requests.map((r) => JSON.stringify(r.body)).find((b) => b.includes(SUB));
      assert.ok(subRequest?.includes('Count the apples.'));
      const [record] = await rig.store.subagents.list();
      assert.deepEqual(record?.result, { apples: 3 });
      assert.equal(record?.spec.template, 'count');
    } finally {
      await rig.close();
    }
  });
});

describe('distillation (P-5)', () => {
  it('cuts a 9 000-byte answer to 8 000 with the marker; the note quotes 400 characters', async () => {
    const playbook: Playbook = {
      turns: [
        { tool_calls: [{ name: 'subagent.run', arguments: { instruction: 'write a lot' } }] },
        { tool_calls: [{ name: 'subagent.status', arguments: { handle: 'sub-1' } }] },
        { content: 'read it' },
      ],
      match: [{ when_contains: SUB, content: 'a'.repeat(9000) }],
    };
    const rig = await startRig(playbook);
    try {
      assert.equal((await answer(rig, 'root', 'go')).reply, 'read it');
      const status = (await rig.store.subagents.list())[0];
      assert.equal(status?.result, `${'a'.repeat(8000)}… [truncated]`);
      await waitUntil(() => notes(rig.sup.conversation('root')?.messages).length > 0, 10_000, 'the note');
      assert.deepEqual(notes(rig.sup.conversation('root')?.messages), [
        `subagent sub-1 completed: ${'a'.repeat(400)}…`,
      ]);
    } finally {
      await rig.close();
    }
  });
});
