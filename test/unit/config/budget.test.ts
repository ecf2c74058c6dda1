import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

function compileYaml(text: string) {
  const dir = tempDir();
  return compileIn(dir, { files: [writeConfig(dir, 'a.yaml', text)] });
}

function errorOf(text: string): string {
  const dir = tempDir();
  return compileError(dir, { files: [writeConfig(dir, 'a.yaml', text)] });
}

describe('budget keys', () => {
  it('reads intelligence.budget with its defaults', () => {
    const config = compileYaml(
      'intelligence:\n  budget:\n    windows: [{per: hour, tokens: 100000}, {per: day, requests: 50, reset: "06:00Z"}]\n',
    );
    assert.deepEqual(config.intelligence.budget, {
      windows: [
        { per: 'hour', tokens: 100_000, requests: null, reset: null },
        { per: 'day', tokens: null, requests: 50, reset: '06:00Z' },
      ],
      lifetime_tokens: null,
      on_exhausted: 'wait',
      slow: { factor: 0.5 },
      degrade: { model: null },
    });
  });

  it('reads agent.conversation_budget and a principal quota', () => {
    const config = compileYaml(
      [
        'agent:',
        '  conversation_budget: {lifetime_tokens: 5000, on_exhausted: refuse}',
        'a2a:',
        '  principals:',
        '    - {id: bob, role: user, match: {any: true}, quotas: {budget: {windows: [{per: minute, tokens: 10}]}}}',
      ].join('\n'),
    );
    assert.equal(config.agent.conversation_budget?.lifetime_tokens, 5000);
    assert.equal(config.agent.conversation_budget?.on_exhausted, 'refuse');
    assert.equal(config.a2a.principals[0]?.quotas?.budget?.windows[0]?.tokens, 10);
  });

  it('clamps slow.factor to 0.01..1', () => {
    const config = compileYaml(
      'intelligence:\n  budget: {lifetime_tokens: 9, on_exhausted: slow, slow: {factor: 3}}\n',
    );
    assert.equal(config.intelligence.budget?.slow.factor, 1);
  });

  it('names every mistake by file:line and key path', () => {
    assert.match(
      errorOf('intelligence:\n  budget:\n    windows: [{per: fortnight, tokens: 1}]\n'),
      /^a\.yaml:3: intelligence\.budget\.windows\[0\]\.per: expected one of second, minute, hour, day, week/,
    );
    assert.match(
      errorOf('intelligence:\n  budget:\n    windows: [{per: hour}]\n'),
      /intelligence\.budget\.windows\[0\]: expected tokens or requests/,
    );
    assert.match(
      errorOf('intelligence:\n  budget:\n    windows: [{per: hour, tokens: 5, reset: "06:00"}]\n'),
      /windows\[0\]\.reset: only day and week windows have a reset/,
    );
    assert.match(
      errorOf('intelligence:\n  budget:\n    on_exhausted: degrade\n    lifetime_tokens: 5\n'),
      /intelligence\.budget\.on_exhausted: degrade needs degrade\.model/,
    );
    assert.match(errorOf('intelligence:\n  budget:\n    tokns: 5\n'), /intelligence\.budget\.tokns: unknown key/);
    assert.match(errorOf('intelligence:\n  budget: {}\n'), /expected windows or lifetime_tokens/);
  });
});

describe('observability.metrics_addr and context.summarize.prompt', () => {
  it('reads HOST:PORT, port 0 included, and refuses other shapes', () => {
    assert.equal(
      compileYaml('observability:\n  metrics_addr: 127.0.0.1:0\n').observability.metrics_addr,
      '127.0.0.1:0',
    );
    assert.equal(
      compileYaml('observability:\n  metrics_addr: "[::1]:9464"\n').observability.metrics_addr,
      '[::1]:9464',
    );
    assert.match(
      errorOf('observability:\n  metrics_addr: localhost\n'),
      /observability\.metrics_addr: expected HOST:PORT/,
    );
    assert.equal(compileYaml('context:\n  summarize:\n    prompt: Be brief.\n').context.summarize.prompt, 'Be brief.');
  });
});
