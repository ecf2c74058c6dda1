// The built-in system prompt (reference §8.2): order, granted families, never empty.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BUILTIN_PROMPT_TEMPLATE,
  MEMORY_KEYS_SHOWN,
  renderPersona,
  renderPrompt,
  renderSystemPrompt,
  WORKFLOWS_SHOWN,
} from '../../../src/context/systemPrompt.js';

const PERSONA = 'You are bob, an autonomous, durable agent (agentd). You act by calling tools and reply when done.';
const CONDUCT = 'Be concise and factual; never invent tool results.';

describe('renderSystemPrompt', () => {
  it('orders persona, instruction, the per-turn slot, then memory', () => {
    const text = renderSystemPrompt({
      instance: 'bob',
      instruction: '  Be helpful.  ',
      internalFamilies: ['memory.*', 'plan.*', 'finish', 'sleep'],
      extra: 'Knowledge: x',
      memoryKeys: ['k1', 'k2'],
    });
    assert.equal(
      text,
      [
        PERSONA,
        'Internal tools (memory.*, plan.*, finish, sleep) are executed by your runtime and are durable; ' +
          'other tools come from connected MCP servers.',
        CONDUCT,
        '',
        '## Instruction',
        'Be helpful.',
        '',
        'Knowledge: x',
        '',
        '## Memory',
        'Keys you can read with memory.get: k1, k2',
      ].join('\n'),
    );
  });

  it('names only the granted families', () => {
    const text = renderSystemPrompt({ instance: 'bob', instruction: '', internalFamilies: ['plan.*'] });
    assert.match(text, /Internal tools \(plan\.\*\) are executed/);
    assert.doesNotMatch(text, /memory\.\*|sleep|finish/);
  });

  it('drops the internal-tools line when nothing internal is granted', () => {
    const text = renderSystemPrompt({ instance: 'bob', instruction: '', internalFamilies: [] });
    assert.equal(text, `${PERSONA}\n${CONDUCT}`);
  });

  it('omits a blank instruction, an empty slot and an empty key list', () => {
    const text = renderSystemPrompt({
      instance: 'bob',
      instruction: '   ',
      internalFamilies: [],
      extra: '\n',
      memoryKeys: [],
    });
    assert.doesNotMatch(text, /## Instruction|## Memory/);
  });

  it('lists at most MEMORY_KEYS_SHOWN keys', () => {
    const keys = Array.from({ length: MEMORY_KEYS_SHOWN + 5 }, (_, i) => `k${i}`);
    const text = renderSystemPrompt({ instance: 'bob', instruction: '', internalFamilies: [], memoryKeys: keys });
    const listed = (text.split('memory.get: ')[1] ?? '').split(', ');
    assert.equal(listed.length, MEMORY_KEYS_SHOWN);
  });

  it('is never empty, even for a blank instance name', () => {
    const text = renderSystemPrompt({ instance: ' ', instruction: '', internalFamilies: [] });
    assert.match(text, /^You are agentd, /);
  });
});

describe('renderPersona', () => {
  it('is the first block of the prompt', () => {
    const prompt = renderSystemPrompt({ instance: 'bob', instruction: 'x', internalFamilies: ['sleep'] });
    assert.ok(prompt.startsWith(renderPersona('bob', ['sleep'])));
  });
});

describe('BUILTIN_PROMPT_TEMPLATE', () => {
  it('holds the persona and every built-in section in order', () => {
    const at = (s: string) => BUILTIN_PROMPT_TEMPLATE.indexOf(s);
    assert.ok(at('You are {{instance}}, an autonomous, durable agent (agentd).') === 0);
    assert.ok(at('{{tools.internal_text}}') > 0);
    assert.ok(at('## Instruction') > at(CONDUCT));
    assert.ok(at('{{extra}}') > at('## Instruction'));
    assert.ok(at('## Memory') > at('{{extra}}'));
  });
});

describe('renderPrompt', () => {
  const input = {
    instance: 'bob',
    instruction: 'Be helpful.',
    internalFamilies: ['plan.*'],
    extra: 'KNOWLEDGE',
    skills: 'SKILLS',
    memoryKeys: ['k'],
  };

  it('orders the built-in most stable first: persona, instruction, slot, skills, memory', () => {
    const { text, problems } = renderPrompt(input);
    assert.deepEqual(problems, []);
    const at = (s: string) => text.indexOf(s);
    assert.ok(at('You are bob') === 0);
    assert.ok(at('## Instruction') < at('KNOWLEDGE'));
    assert.ok(at('KNOWLEDGE') < at('SKILLS'));
    assert.ok(at('SKILLS') < at('## Memory'));
  });

  it('renders context.template over the same data', () => {
    const { text } = renderPrompt(
      input,
      '{{instance}} | {{tools.internal_text}} | {{instruction}} | {{memory.keys_text}}',
    );
    assert.equal(text, 'bob | plan.* | Be helpful. | k');
  });

  it('falls back to the built-in when the template fails or renders blank', () => {
    const failed = renderPrompt(input, '{{#each instruction}}x{{/each}}');
    assert.equal(failed.text, renderSystemPrompt(input));
    assert.equal(failed.problems[0]?.event, 'prompt.render.fail');
    const blank = renderPrompt(input, '{{#if nothing}}x{{/if}}  ');
    assert.equal(blank.text, renderSystemPrompt(input));
    assert.match(blank.problems[0]?.err ?? '', /rendered nothing/);
  });
});

describe('## Workflows', () => {
  const base = { instance: 'bob', instruction: 'Be helpful.', internalFamilies: ['workflow.*'], skills: 'SKILLS' };
  const nightly = {
    name: 'nightly',
    description: 'Counts the open items and reports.\nMore detail the prompt leaves out.',
    inputsSchema: { type: 'object', properties: { region: {}, limit: {} }, required: ['region'] },
  };

  it('lists each workflow with its description and inputs, after the slot and before the skills', () => {
    const text = renderSystemPrompt({
      ...base,
      extra: 'KNOWLEDGE',
      workflows: [nightly, { ...nightly, name: 'bare', description: '', inputsSchema: null }],
    });
    const section = [
      '## Workflows (workflow.run {name, inputs}; workflow.wait {run})',
      '- nightly: Counts the open items and reports. (inputs: region (required), limit)',
      '- bare',
    ].join('\n');
    assert.ok(text.includes(`KNOWLEDGE\n\n${section}\n\nSKILLS`), text);
  });

  it('is left out when there is no workflow (premise: the same input with one has it)', () => {
    assert.ok(!renderSystemPrompt({ ...base, workflows: [] }).includes('## Workflows'));
    assert.ok(!renderSystemPrompt(base).includes('## Workflows'));
    assert.ok(renderSystemPrompt({ ...base, workflows: [nightly] }).includes('## Workflows'));
  });

  it('stays short: at most WORKFLOWS_SHOWN lines, then a pointer to workflow.list; long descriptions cut', () => {
    const many = Array.from({ length: WORKFLOWS_SHOWN + 3 }, (_, i) => ({
      name: `w${i}`,
      description: 'x'.repeat(500),
      inputsSchema: null,
    }));
    const text = renderSystemPrompt({ ...base, workflows: many });
    const lines = text.split('\n').filter((l) => l.startsWith('- '));
    assert.equal(lines.length, WORKFLOWS_SHOWN + 1);
    assert.equal(lines.at(-1), '- 3 more: workflow.list');
    assert.ok((lines[0] ?? '').length <= 130, lines[0]);
  });

  it('is data for context.template too', () => {
    const { text } = renderPrompt(
      { ...base, workflows: [nightly] },
      '{{#each workflows}}{{this.name}}={{this.inputs_text}}{{/each}}',
    );
    assert.equal(text, 'nightly=region (required), limit');
  });
});
