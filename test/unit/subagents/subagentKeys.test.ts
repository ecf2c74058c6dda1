// The subagent config keys (reference §1.13, §1.3): defaults, the rate's shape, templates checked at load.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from '../config/configFiles.js';

describe('subagent config keys', () => {
  it('default to the reference: depth 3, breadth 8, total 64, rate 8/2s; freeform on, no templates', () => {
    const config = compileIn(tempDir(), {});
    assert.deepEqual(config.limits.subagents, { depth: 3, breadth: 8, total: 64, rate: '8/2s', per_caller: 0 });
    assert.deepEqual(config.subagents, { allow_freeform: true, templates: {}, keep: 256, keep_for: 86_400_000 });
  });

  it('reads templates and refuses a bad rate or a template field, naming the path', () => {
    const dir = tempDir();
    const good = writeConfig(
      dir,
      'good.yaml',
      'subagents:\n  allow_freeform: false\n  templates:\n    review:\n      instruction: Review {{path}}\n' +
        '      params:\n        path: {type: string, required: true}\n      mode: async\n',
    );
    const config = compileIn(dir, { files: [good] });
    assert.equal(config.subagents.allow_freeform, false);
    assert.equal(config.subagents.templates.review?.params.path?.type, 'string');
    const rate = writeConfig(dir, 'rate.yaml', 'limits:\n  subagents:\n    rate: fast\n');
    assert.match(compileError(dir, { files: [rate] }), /limits\.subagents\.rate/);
    const field = writeConfig(
      dir,
      'field.yaml',
      'subagents:\n  templates:\n    review:\n      instruction: x\n      prompt: y\n',
    );
    assert.match(compileError(dir, { files: [field] }), /subagents\.templates.*review.*prompt/s);
  });
});

describe('subagent template values at load', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['memory', '      limits: {memory: lots}\n', /review\.limits\.memory.*expected a size/],
    ['cpu', '      limits: {cpu: soon}\n', /review\.limits\.cpu/],
    ['steps', '      limits: {steps: -1}\n', /review\.limits\.steps.*whole number/],
    // A number is seconds; -5 used to pass the load and silently fall back to limits.run.deadline at call time.
    ['deadline', '      limits: {deadline: -5}\n', /review\.limits\.deadline.*positive duration, got -5/],
    // An unknown server used to pass the load and grant nothing at call time.
    [
      'servers',
      '      servers: [nope]\n',
      /subagents\.templates\.review\.servers: 'nope' is not a configured MCP server/,
    ],
    [
      'default',
      '      params:\n        n: {type: integer, default: "3"}\n',
      /review\.params\.n\.default.*expected integer/,
    ],
    ['enum', '      params:\n        t: {type: string, enum: [1, 2]}\n', /review\.params\.t\.enum.*expected string/],
    ['default outside enum', '      params:\n        t: {type: string, enum: [a], default: b}\n', /params\.t\.default/],
  ];
  for (const [what, body, expected] of cases) {
    it(`refuses a template whose ${what} does not read, naming the template and field`, () => {
      const dir = tempDir();
      const file = writeConfig(dir, 'bad.yaml', `subagents:\n  templates:\n    review:\n      instruction: x\n${body}`);
      const error = compileError(dir, { files: [file] });
      assert.match(error, expected);
      assert.equal(error.split('\n').length, 1, 'one line');
    });
  }

  it('accepts values that read', () => {
    const dir = tempDir();
    const body =
      '      limits: {memory: 512MB, cpu: 30s, steps: 5, deadline: 30}\n      servers: [fs]\n' +
      '      params:\n        t: {type: string, enum: [a], default: a}\n';
    const mcp = 'mcp:\n  servers:\n    fs: {command: node}\n';
    const file = writeConfig(
      dir,
      'good.yaml',
      `${mcp}subagents:\n  templates:\n    review:\n      instruction: x\n${body}`,
    );
    const config = compileIn(dir, { files: [file] });
    assert.equal(config.subagents.templates.review?.limits?.memory, '512MB');
    assert.deepEqual(config.subagents.templates.review?.servers, ['fs']);
  });
});
