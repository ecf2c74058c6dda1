import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

function policiesFile(dir: string, rules: string[]): string {
  return writeConfig(dir, 'p.yaml', ['security:', '  policies:', ...rules.map((rule) => `    ${rule}`)].join('\n'));
}

describe('security.policies', () => {
  it('reads rules with their defaults, in order', () => {
    const dir = tempDir();
    const file = policiesFile(dir, [
      '- name: no-writes',
      '  match: {tool: "fs.write*", server: fs, tags: [sensitive, egress], caller: root}',
      '  action: deny',
      '- match: {principal: "user:*", args: {options.mode: fast, path: [1, 2]}}',
      '  action: ask',
      '  timeout: 30s',
      '- {action: allow}',
    ]);
    assert.deepEqual(compileIn(dir, { files: [file] }).security.policies, [
      {
        name: 'no-writes',
        match: { tool: 'fs.write*', server: 'fs', tags: ['sensitive', 'egress'], caller: ['root'] },
        action: 'deny',
        on_timeout: 'deny',
        timeout: 300_000,
      },
      {
        name: 'policies[1]',
        match: { principal: 'user:*', args: { 'options.mode': 'fast', path: [1, 2] } },
        action: 'ask',
        on_timeout: 'deny',
        timeout: 30_000,
      },
      { name: 'policies[2]', match: {}, action: 'allow', on_timeout: 'deny', timeout: 300_000 },
    ]);
  });

  it('reads on_timeout on an ask rule', () => {
    const dir = tempDir();
    const file = policiesFile(dir, ['- {action: ask, on_timeout: allow}']);
    assert.equal(compileIn(dir, { files: [file] }).security.policies[0]?.on_timeout, 'allow');
  });

  it('reports each malformed rule with file:line and its path', () => {
    const cases: [string[], string][] = [
      [
        ['- {action: allow}', '- {match: {tool: x}}'],
        'p.yaml:4: security.policies[1].action: expected one of allow, deny, ask',
      ],
      [['- {action: permit}'], 'p.yaml:3: security.policies[0].action: expected one of allow, deny, ask, got "permit"'],
      [['- {action: deny, mach: {}}'], "p.yaml:3: security.policies[0].mach: unknown key (did you mean 'match'?)"],
      [
        ['- action: deny', '  match:', '    tool: x', '    tols: y'],
        "p.yaml:6: security.policies[0].match.tols: unknown key (did you mean 'tool'?)",
      ],
      [
        ['- {action: deny, match: {tags: [sensitive, secret]}}'],
        'p.yaml:3: security.policies[0].match.tags[1]: expected one of untrusted_input, sensitive, egress, got "secret"',
      ],
      [
        ['- {action: deny, match: {caller: workflow}}'],
        'p.yaml:3: security.policies[0].match.caller: expected one of root, conversation, got "workflow"',
      ],
      [['- {action: deny, on_timeout: allow}'], 'p.yaml:3: security.policies[0].on_timeout: only for action ask'],
      [['- {action: allow, timeout: 5s}'], 'p.yaml:3: security.policies[0].timeout: only for action ask'],
      [
        ['- {action: ask, timeout: soon}'],
        'p.yaml:3: security.policies[0].timeout: invalid duration "soon" (use e.g. 500ms, 30s, 5m, 1h)',
      ],
      [
        ['- {action: ask, on_timeout: ask}'],
        'p.yaml:3: security.policies[0].on_timeout: expected one of allow, deny, got "ask"',
      ],
      [
        ['- {action: deny, match: {tool: "fs*write"}}'],
        'p.yaml:3: security.policies[0].match.tool: expected a name, "*" or "prefix*" (a star only at the end)',
      ],
      [
        ['- {action: deny, match: {args: {"a..b": 1}}}'],
        'p.yaml:3: security.policies[0].match.args.a..b: expected a dotted argument path',
      ],
      [
        ['- {name: x, action: deny}', '- {name: x, action: allow}'],
        'p.yaml:4: security.policies[1].name: "x" already names policies[0]',
      ],
      [['- deny'], 'p.yaml:3: security.policies[0]: expected a mapping with match and action, got "deny"'],
    ];
    for (const [rules, message] of cases) {
      const dir = tempDir();
      assert.equal(compileError(dir, { files: [policiesFile(dir, rules)] }), message);
    }
  });

  it('refuses a mapping where the list belongs', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'p.yaml', 'security:\n  policies: {action: deny}\n');
    assert.equal(compileError(dir, { files: [file] }), 'p.yaml:2: security.policies: expected a list of rules');
  });

  it('replaces the list as a whole across files', () => {
    const dir = tempDir();
    const a = writeConfig(dir, 'a.yaml', 'security: {policies: [{action: deny}, {action: allow}]}\n');
    const b = writeConfig(dir, 'b.yaml', 'security: {policies: [{action: ask}]}\n');
    const policies = compileIn(dir, { files: [a, b] }).security.policies;
    assert.deepEqual(
      policies.map((rule) => rule.action),
      ['ask'],
    );
  });
});
