// What the turn's system prompt is built from (reference §7, §8): knowledge auto-context, skills, instruction
// files, context.template, and the cache contract — an unchanged conversation sends a byte-identical prompt.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUILTIN_PROMPT_TEMPLATE } from '../../../src/context/systemPrompt.js';
import { KNOWLEDGE_HEADING } from '../../../src/prep/knowledge.js';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import type { Playbook } from '../../doubles/scriptedModel.js';
import { type Rig, startRig } from '../harness.js';
import { within } from '../wait.js';
import { systemOf, turnRequests } from './requests.js';

const OP = 'operator';
const NO_PREFLIGHT = { AGENTD_AGENT_PREFLIGHT: 'never' };

async function ask(rig: Rig, ctx: string, text: string) {
  const event = (await rig.sup.accept({ context_id: ctx, text, principal: OP })).record;
  assert.ok(event);
  const outcome = await within(rig.sup.outcomeOf(event.id), 30_000, `the answer to ${ctx}`);
  assert.equal(outcome.status, 'completed', outcome.error);
  return outcome;
}

const notesOf = (rig: Rig, ctx: string): string[] =>
  rig.sup.conversation(ctx)?.messages.flatMap((m) => (m.role === 'note' ? [m.text] : [])) ?? [];

describe('the turn prompt', () => {
  let kb: McpTestServer;
  before(async () => {
    kb = await startMcpTestServer();
  });
  after(async () => {
    await kb.close();
  });
  const answer: Playbook = { turns: [{ content: 'ok' }] };

  it('holds the knowledge block when the search has hits', async () => {
    const yaml = `mcp: {servers: {kb: {url: "${kb.url}"}}}\nknowledge: {server: kb, auto_context: {on: turn, top_k: 1}}`;
    const rig = await startRig(answer, NO_PREFLIGHT, { yaml });
    try {
      await ask(rig, 'k', 'how do we deploy?');
      const system = systemOf(turnRequests(rig.model.requests)[0]);
      assert.ok(system.includes(`${KNOWLEDGE_HEADING}\n- [Runbook](kb://runbook): KB-HIT about how do we deploy?`));
      assert.ok(!system.includes('second hit'), 'top_k 1');
      const call = kb.calls.find((c) => c.name === 'search');
      assert.deepEqual(call?.args, { query: 'how do we deploy?', top_k: 1 });
      assert.equal(call?.meta?.['agent/ctx'], 'k');
      assert.equal(rig.named('knowledge.auto_context')[0]?.hit, true);
    } finally {
      await rig.close();
    }
  });

  it('still runs the turn when the search fails, with no block', async () => {
    const yaml = [
      `mcp: {servers: {kb: {url: "${kb.url}"}}}`,
      'knowledge: {auto_context: {on: turn}}',
      'tools: {overrides: {knowledge.search: {server: kb, tool: failing}}}',
    ].join('\n');
    const rig = await startRig(answer, NO_PREFLIGHT, { yaml });
    try {
      const outcome = await ask(rig, 'kf', 'how do we deploy?');
      assert.equal(outcome.reply, 'ok');
      assert.ok(!systemOf(turnRequests(rig.model.requests)[0]).includes(KNOWLEDGE_HEADING));
      assert.equal(rig.named('knowledge.auto_context')[0]?.hit, false);
    } finally {
      await rig.close();
    }
  });

  it('sends byte-identical system prompts on two turns of one conversation when nothing stable changed', async () => {
    const rig = await startRig(answer, NO_PREFLIGHT, { yaml: 'agent: {instruction: Answer briefly.}' });
    try {
      await ask(rig, 'same', 'first question');
      await ask(rig, 'same', 'second question');
      const [one, two] = turnRequests(rig.model.requests).map(systemOf);
      assert.match(one ?? '', /## Instruction\nAnswer briefly\./, 'the premise: a real prompt was sent');
      assert.equal(two, one);
      assert.ok(!(one ?? '').includes('current date'), 'the date is a note at the tail, not in the prompt');
      assert.match(notesOf(rig, 'same')[0] ?? '', /^current date: \d{4}-\d{2}-\d{2} \(UTC\)$/);
    } finally {
      await rig.close();
    }
  });

  it('reads instruction files into ## Instruction and tells a change in a note, keeping the prompt', async () => {
    const rig = await startRig(answer, NO_PREFLIGHT, {
      yaml: 'agent: {instruction: Be careful., instruction_files: [AGENTS.md]}',
      files: { 'AGENTS.md': 'Always run the tests.\n' },
    });
    try {
      await ask(rig, 'i', 'hello');
      writeFileSync(join(rig.dir, 'AGENTS.md'), 'Never push on Fridays.\n');
      await ask(rig, 'i', 'hello again');
      const [one, two] = turnRequests(rig.model.requests).map(systemOf);
      assert.match(one ?? '', /## Instruction\nBe careful\.\n\n### AGENTS\.md\nAlways run the tests\./);
      assert.equal(two, one, 'the stable prefix does not change under a running agent');
      const changed = notesOf(rig, 'i').filter((n) => n.startsWith('instruction file AGENTS.md changed'));
      assert.equal(changed.length, 1);
      assert.match(changed[0] ?? '', /Never push on Fridays\./);
    } finally {
      await rig.close();
    }
  });

  it('renders context.template, and falls back to the built-in when it fails', async () => {
    const yaml = [
      'agent: {name: desk, instruction: Be brief.}',
      'context:',
      '  template: "{{instance}}: {{instruction}}"',
    ];
    const rig = await startRig(answer, NO_PREFLIGHT, { yaml: yaml.join('\n') });
    try {
      await ask(rig, 't', 'hello');
      assert.equal(systemOf(turnRequests(rig.model.requests)[0]), 'desk: Be brief.');
    } finally {
      await rig.close();
    }
    const broken = ['agent: {instruction: Be brief.}', 'context: {template: "{{#each instruction}}x{{/each}}"}'];
    const rig2 = await startRig(answer, NO_PREFLIGHT, { yaml: broken.join('\n') });
    try {
      await ask(rig2, 't', 'hello');
      assert.match(
        systemOf(turnRequests(rig2.model.requests)[0]),
        /^You are agentd, .*\n[\s\S]*## Instruction\nBe brief\./,
      );
      assert.equal(rig2.named('prompt.render.fail').length, 1);
      assert.ok(BUILTIN_PROMPT_TEMPLATE.startsWith('You are {{instance}}'));
    } finally {
      await rig2.close();
    }
  });

  describe('skills', () => {
    const yaml = () => `mcp: {servers: {kb: {url: "${kb.url}"}}}\nskills: {sources: [kb]}`;

    it('lists the catalogue, loads an @skill reference into the prompt, notes an unknown one', async () => {
      const rig = await startRig(answer, NO_PREFLIGHT, { yaml: yaml() });
      try {
        await ask(rig, 's', 'use @skill:deploy and @skill:nope.');
        const system = systemOf(turnRequests(rig.model.requests)[0]);
        assert.match(system, /Available skills .*\n- deploy: How we deploy\n- review: Review checklist/);
        assert.match(system, /### Skill: deploy\nDEPLOY-SKILL-BODY/);
        assert.match(system, /Internal tools \(.*skills\.\*.*\)/, 'the persona names the skills tools');
        assert.deepEqual(rig.sup.conversation('s')?.skills, ['deploy']);
        assert.ok(notesOf(rig, 's').includes('skill.unknown: "nope" is not in the skill catalogue'));
        assert.equal(rig.named('skill.loaded')[0]?.skill, 'deploy');
      } finally {
        await rig.close();
      }
    });

    it('skills.load reads a resource skill; past skills.max_loaded it is refused', async () => {
      const playbook: Playbook = {
        turns: [{ content: 'loaded' }],
        match: [
          {
            when_contains: 'load them',
            times: 1,
            tool_calls: [
              { name: 'skills.load', arguments: { name: 'review' } },
              { name: 'skills.load', arguments: { name: 'deploy' } },
            ],
          },
        ],
      };
      const rig = await startRig(playbook, { ...NO_PREFLIGHT, AGENTD_SKILLS_MAX_LOADED: '1' }, { yaml: yaml() });
      try {
        await ask(rig, 'l', 'load them');
        const results = rig.sup.conversation('l')?.messages.flatMap((m) => (m.role === 'tool' ? [m] : []));
        assert.equal(results?.[0]?.is_error, false);
        assert.match(JSON.stringify(results?.[0]?.content), /REVIEW-SKILL-BODY/);
        assert.equal(results?.[1]?.is_error, true);
        assert.match(String(results?.[1]?.content), /skills\.max_loaded/);
        await ask(rig, 'l', 'next');
        assert.match(systemOf(turnRequests(rig.model.requests).at(-1)), /### Skill: review\nREVIEW-SKILL-BODY/);
      } finally {
        await rig.close();
      }
    });

    it('grants no skills tools without skill sources', async () => {
      const rig = await startRig(answer, NO_PREFLIGHT);
      try {
        await ask(rig, 'n', 'hello');
        assert.ok(!JSON.stringify(turnRequests(rig.model.requests)[0]?.body).includes('skills_'));
      } finally {
        await rig.close();
      }
    });
  });
});
