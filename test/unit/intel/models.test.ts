import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Config } from '../../../src/config/types.js';
import { modelWindow, specForJob, specForModel } from '../../../src/intel/models.js';
import { SEED } from '../../fixtures/seedExample.js';
import { compileError, compileIn, tempDir, writeConfig } from '../config/configFiles.js';

const KEYS = { OPENAI_API_KEY: 'sk-openai-seed-1', ANTHROPIC_API_KEY: 'sk-ant-seed-2' };

function compileText(text: string, env: Record<string, string> = {}): Readonly<Config> {
  const dir = tempDir();
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', text)], env });
}

const OPENAI = {
  endpoints: ['https://api.openai.com/v1/chat/completions'],
  token: 'sk-openai-seed-1',
  dialect: 'openai',
  headers: [],
  timeout_ms: 120_000,
  structured_output: 'native',
  prompt_cache_key: 'auto',
} as const;

describe('specForJob', () => {
  it('runs the seed example: turn on smart, preflight and compaction on fast, think and decide on the turn', () => {
    const config = compileText(SEED, KEYS);
    const smart = { ...OPENAI, model: 'gpt-5.1', kind: 'chat', reasoning: null, fallback: null };
    assert.deepEqual(specForJob(config, 'turn'), smart);
    const fast = { ...smart, model: 'gpt-5-mini' };
    assert.deepEqual(specForJob(config, 'preflight'), fast);
    assert.deepEqual(specForJob(config, 'compaction'), fast);
    assert.deepEqual(specForJob(config, 'think'), smart);
    assert.deepEqual(specForJob(config, 'decide'), smart);
  });

  it('resolves the seed route to the anthropic provider, a reasoning model with high effort', () => {
    const config = compileText(SEED, KEYS);
    assert.deepEqual(Object.keys(config.intelligence.routes), ['deep']);
    assert.deepEqual(specForModel(config, 'deep'), {
      endpoints: ['https://api.anthropic.com'],
      token: 'sk-ant-seed-2',
      dialect: 'anthropic',
      headers: [],
      timeout_ms: 120_000,
      structured_output: 'native',
      prompt_cache_key: 'auto',
      model: 'claude-opus-5-5',
      kind: 'reasoning',
      reasoning: { effort: 'high' },
      fallback: null,
    });
  });

  it('runs a literal intelligence.model as an implicit chat model on the top-level connection', () => {
    const config = compileText(
      'intelligence:\n  endpoints: http://m.test/v1\n  model: gpt-4o\n  timeout: 30s\n  headers: {X-A: b}\n',
    );
    for (const job of ['turn', 'preflight', 'compaction', 'think', 'decide'] as const) {
      assert.deepEqual(specForJob(config, job), {
        endpoints: ['http://m.test/v1'],
        token: null,
        dialect: 'openai',
        headers: [['X-A', 'b']],
        timeout_ms: 30_000,
        structured_output: 'native',
        prompt_cache_key: 'auto',
        model: 'gpt-4o',
        kind: 'chat',
        reasoning: null,
        fallback: null,
      });
    }
  });

  it('takes intelligence.model (--model) as a declared alias', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence:\n  models: {fast: {model: gpt-5-mini}}\n');
    const config = compileIn(dir, { files: [file], flags: { model: 'fast' } });
    assert.equal(specForJob(config, 'turn').model, 'gpt-5-mini');
  });

  it('carries a provider structured_output and the top-level one otherwise', () => {
    const config = compileText(
      [
        'intelligence:',
        '  structured_output: prompt',
        '  providers:',
        '    p: {endpoints: "http://p.test", structured_output: native}',
        '  models:',
        '    a: {model: m-a, provider: p}',
        '    b: {model: m-b}',
        '  roles: {turn: a, think: b}',
      ].join('\n'),
    );
    assert.equal(specForJob(config, 'turn').structured_output, 'native');
    assert.equal(specForJob(config, 'think').structured_output, 'prompt');
  });

  it('nests the fallback chain as specs, each on its own connection', () => {
    const config = compileText(
      [
        'intelligence:',
        '  endpoints: http://top.test',
        '  providers:',
        '    backup: {endpoints: ["http://b1.test", "http://b2.test"], dialect: anthropic, token: tok-backup-1}',
        '  models:',
        '    main: {model: m-main, fallback: second}',
        '    second: {model: m-second, provider: backup, fallback: last}',
        '    last: {model: m-last}',
        '  roles: {turn: main}',
      ].join('\n'),
    );
    const spec = specForJob(config, 'turn');
    assert.equal(spec.model, 'm-main');
    assert.deepEqual(spec.endpoints, ['http://top.test']);
    const second = spec.fallback;
    assert.ok(second);
    assert.equal(second.model, 'm-second');
    assert.deepEqual(second.endpoints, ['http://b1.test', 'http://b2.test']);
    assert.equal(second.dialect, 'anthropic');
    assert.equal(second.token, 'tok-backup-1');
    assert.equal(second.fallback?.model, 'm-last');
    assert.deepEqual(second.fallback?.endpoints, ['http://top.test']);
    assert.equal(second.fallback?.fallback, null);
  });

  it('refuses a fallback cycle at load, so a spec never loops', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'intelligence:\n  models:\n    a: {model: m1, fallback: b}\n    b: {model: m2, fallback: a}\n',
    );
    assert.equal(
      compileError(dir, { files: [file] }),
      'a.yaml:3: intelligence.models.a.fallback: fallback cycle a → b → a',
    );
  });

  it('refuses an undeclared alias', () => {
    assert.throws(() => specForModel(compileText(SEED, KEYS), 'nope'), /'nope' is not declared/);
  });
});

describe('modelWindow', () => {
  const declared = [
    'intelligence:',
    '  models:',
    '    big: {model: gpt-4.1}',
    '    claude: {model: claude-sonnet-4}',
    '    small: {model: gpt-4.1-mini, window: 50000}',
    '    other: {model: llama-3}',
  ];
  const cases: [string, string[], number][] = [
    ['explicit context.model_window', ['  roles: {turn: small}', 'context: {model_window: 9000}'], 9_000],
    ['the turn model declared window', ['  roles: {turn: small}'], 50_000],
    ['guessed from a declared claude model', ['  roles: {turn: claude}'], 200_000],
    ['guessed from a declared gpt-4.1 model', ['  roles: {turn: big}'], 1_000_000],
    ['guessed 128k for anything else', ['  roles: {turn: other}'], 128_000],
    ['guessed from a literal intelligence.model', ['  model: gemini-2.5-pro'], 1_000_000],
    ['the smallest among turn and routes', ['  roles: {turn: big}', '  routes: {claude: hard, other: x}'], 128_000],
    ['a route declared window counts', ['  roles: {turn: big}', '  routes: {small: tiny}'], 50_000],
    [
      'explicit wins over routes',
      ['  roles: {turn: big}', '  routes: {small: tiny}', 'context: {model_window: 700000}'],
      700_000,
    ],
  ];
  for (const [name, extra, window] of cases) {
    it(name, () => assert.equal(modelWindow(compileText([...declared, ...extra].join('\n'))), window));
  }

  it('uses gpt-4o-mini (128k) by default', () => {
    assert.equal(modelWindow(compileText('')), 128_000);
  });

  it('is the seed example smallest: gpt-5.1 128k beside claude 200k', () => {
    assert.equal(modelWindow(compileText(SEED, KEYS)), 128_000);
  });
});
