// Load-time checks of the intelligence kinds (producers reference §2.3, §2.8): think, its presets and the agent
// step's own turn settings refuse what they cannot run, with the step named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { compileError, compileIn, tempDir, writeConfig } from '../config/configFiles.js';

function errors(step: Record<string, unknown>): string[] {
  const got = loadWorkflow({
    name: 'w',
    steps: { s: { kind: 'once' }, x: { depends_on: 's', ...step }, f: { kind: 'finish', depends_on: 'x' } },
  });
  return got.ok ? [] : got.errors;
}

const at = (p: string) => `workflow "w" step "x": ${p}`;

describe('intelligence kinds at load', () => {
  it('accepts each kind with its fields', () => {
    const good: Record<string, unknown>[] = [
      {
        kind: 'think',
        prompt: 'p',
        output_schema: { type: 'object' },
        reads: ['inputs.a'],
        check: 'output.ok',
        retries: 2,
        system: 'You judge.',
      },
      { kind: 'classify', input: 'i', classes: ['a', 'b'], prompt: 'g' },
      { kind: 'extract', input: 'i', output_schema: { type: 'object' } },
      { kind: 'summarize', input: 'i', length: '10 words' },
      { kind: 'judge', input: 'i', rubric: 'r' },
      { kind: 'route', input: 'i', choices: { a: 'for a', b: 'for b' } },
      { kind: 'route', input: 'i', choices: ['a', 'b'] },
    ];
    for (const step of good) assert.deepEqual(errors(step), [], JSON.stringify(step));
  });

  const table: Array<[string, Record<string, unknown>, string[]]> = [
    ['think without prompt', { kind: 'think' }, [at('kind "think" requires field "prompt"')]],
    [
      'think reads not a list',
      { kind: 'think', prompt: 'p', reads: 'inputs.a' },
      [at('think.reads must be a list of scope paths')],
    ],
    [
      'think retries out of range',
      { kind: 'think', prompt: 'p', retries: 11 },
      [at('think.retries must be an integer from 0 to 10')],
    ],
    ['think check not CEL', { kind: 'think', prompt: 'p', check: 'output.' }, [at('check: CEL parse error')]],
    ['think check not a string', { kind: 'think', prompt: 'p', check: true }, [at('think.check must be a CEL string')]],
    ['think system not a string', { kind: 'think', prompt: 'p', system: 3 }, [at('think.system must be a string')]],
    [
      'think skills',
      { kind: 'think', prompt: 'p', skills: 's' },
      [at('think.skills must be a non-empty list of skill names')],
    ],
    [
      'think bad schema',
      { kind: 'think', prompt: 'p', output_schema: 'x' },
      [at('output_schema: a schema must be an object')],
    ],
    [
      'think unknown field',
      { kind: 'think', prompt: 'p', input: 'i' },
      [
        at(
          'unknown field "input" for kind "think" (allowed: prompt, output_schema, reads, check, retries, skills, system)',
        ),
      ],
    ],
    ['classify without classes', { kind: 'classify', input: 'i' }, [at('kind "classify" requires field "classes"')]],
    [
      'classify empty classes',
      { kind: 'classify', input: 'i', classes: [] },
      [at('classify.classes must be a non-empty list of names')],
    ],
    [
      'classify duplicate classes',
      { kind: 'classify', input: 'i', classes: ['a', 'a'] },
      [at('classify.classes names must be unique')],
    ],
    [
      'classify skills',
      { kind: 'classify', input: 'i', classes: ['a'], skills: [] },
      [at('classify.skills must be a non-empty list of skill names')],
    ],
    ['extract without schema', { kind: 'extract', input: 'i' }, [at('kind "extract" requires field "output_schema"')]],
    ['summarize without input', { kind: 'summarize' }, [at('kind "summarize" requires field "input"')]],
    ['judge without rubric', { kind: 'judge', input: 'i' }, [at('kind "judge" requires field "rubric"')]],
    ['route without choices', { kind: 'route', input: 'i' }, [at('kind "route" requires field "choices"')]],
    [
      'route choices a string',
      { kind: 'route', input: 'i', choices: 'a' },
      [at('route.choices must be a non-empty list of names or a mapping of name → description')],
    ],
  ];
  for (const [name, step, want] of table) {
    it(`refuses ${name}`, () => {
      const got = errors(step);
      assert.equal(got.length, want.length, got.join('\n'));
      for (const [i, w] of want.entries()) assert.ok(got[i]?.startsWith(w), `${got[i]} ≠ ${w}`);
    });
  }
});

describe('agent step settings at load', () => {
  it('accepts system, tools, servers and limits', () => {
    const step = {
      kind: 'agent',
      instruction: 'i',
      system: 's',
      tools: ['memory.*'],
      servers: ['a'],
      context: [{ role: 'system', content: 'seed' }],
      skills: ['deploy'],
      limits: { steps: 3, tokens: 900 },
    };
    assert.deepEqual(errors(step), []);
  });

  const table: Array<[string, Record<string, unknown>, string[]]> = [
    ['system not a string', { system: ['x'] }, [at('agent.system must be a string')]],
    ['tools empty', { tools: [] }, [at('agent.tools must be a non-empty list of names')]],
    ['servers a string', { servers: 'a' }, [at('agent.servers must be a non-empty list of names')]],
    ['limits a number', { limits: 3 }, [at('agent.limits must be {steps?, tokens?}')]],
    [
      'limits unknown key',
      { limits: { deadline: '1m' } },
      [at('agent.limits: unknown field "deadline" (allowed: steps, tokens)')],
    ],
    ['limits not positive', { limits: { steps: 0 } }, [at('agent.limits.steps must be a positive integer')]],
    [
      'context of the wrong shape',
      { context: [{ role: 'tool', content: 'x' }] },
      [at('agent.context must be a list of {role, content} (role system, user or assistant)')],
    ],
    ['skills not names', { skills: [1] }, [at('agent.skills must be a non-empty list of skill names')]],
  ];
  for (const [name, fields, want] of table) {
    it(`refuses ${name}`, () => assert.deepEqual(errors({ kind: 'agent', instruction: 'i', ...fields }), want));
  }

  it('refuses a literal server absent from mcp.servers in a configured workflow', () => {
    const yaml = (servers: string) => `${servers}workflows:
  - name: w
    steps:
      s: {kind: once}
      a: {kind: agent, depends_on: s, instruction: i, servers: [kb, "{{inputs.s}}"]}
      f: {kind: finish, depends_on: a}
`;
    const dir = tempDir();
    assert.equal(
      compileError(dir, { files: [writeConfig(dir, 'a.yaml', yaml(''))] }),
      'workflow "w" step "a": servers "kb" is not in mcp.servers (configured: none)',
    );
    const ok = writeConfig(dir, 'b.yaml', yaml('mcp:\n  servers:\n    kb: {command: x}\n'));
    assert.equal(compileIn(dir, { files: [ok] }).workflows[0]?.name, 'w');
  });
});
