import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeConfigKeys } from '../../../src/config/compile.js';
import { createLogger } from '../../../src/obs/log.js';
import { compileError, compileIn, tempDir, writeConfig } from './configFiles.js';

const MODELS = [
  'intelligence:',
  '  endpoints: https://api.openai.com/v1',
  '  providers:',
  '    anthropic: {endpoints: "https://api.anthropic.com", dialect: anthropic}',
  '  models:',
  '    smart: {model: gpt-5.1}',
  '    fast: {model: gpt-5-mini}',
  '    deep: {kind: reasoning, provider: anthropic, model: claude-opus-5-5, reasoning: {effort: high}}',
  '    judge: {kind: decision, model: judge-1}',
];

/** The error of MODELS plus `extra` lines (line numbers: MODELS has 9 lines, so extra starts at 10). */
function errorWith(extra: string[], env: Record<string, string> = {}): string {
  const dir = tempDir();
  const file = writeConfig(dir, 'a.yaml', [...MODELS, ...extra].join('\n'));
  return compileError(dir, { files: [file], env });
}

function compileWith(extra: string[], env: Record<string, string> = {}, model?: string) {
  const dir = tempDir();
  const file = writeConfig(dir, 'a.yaml', [...MODELS, ...extra].join('\n'));
  return compileIn(dir, { files: [file], env, flags: model === undefined ? {} : { model } });
}

describe('intelligence providers and models', () => {
  it('reads providers and models with their defaults', () => {
    const intel = compileWith([]).intelligence;
    assert.deepEqual(intel.providers, {
      anthropic: {
        endpoints: ['https://api.anthropic.com'],
        dialect: 'anthropic',
        token: null,
        headers: {},
        structured_output: 'native',
        prompt_cache_key: 'auto',
      },
    });
    assert.deepEqual(intel.models['smart'], {
      model: 'gpt-5.1',
      kind: 'chat',
      family: null,
      provider: null,
      reasoning: null,
      window: null,
      fallback: null,
    });
    assert.deepEqual(intel.models['deep']?.reasoning, { effort: 'high' });
  });

  it('gives a provider without structured_output the top-level one, and keeps its own', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      [
        'intelligence:',
        '  structured_output: prompt',
        '  providers:',
        '    a: {endpoints: ["http://a.test", "http://b.test"]}',
        '    b: {endpoints: "http://c.test", structured_output: native}',
      ].join('\n'),
    );
    const intel = compileIn(dir, { files: [file] }).intelligence;
    assert.equal(intel.structured_output, 'prompt');
    assert.deepEqual(intel.providers['a']?.endpoints, ['http://a.test', 'http://b.test']);
    assert.equal(intel.providers['a']?.structured_output, 'prompt');
    assert.equal(intel.providers['b']?.structured_output, 'native');
    const fromEnv = compileIn(dir, { env: { AGENTD_INTELLIGENCE_STRUCTURED_OUTPUT: 'prompt' } });
    assert.equal(fromEnv.intelligence.structured_output, 'prompt');
  });

  it('redacts provider tokens, secret-sourced and credential-named header values; ordinary headers stay', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      [
        'intelligence:',
        '  providers:',
        '    p:',
        '      endpoints: http://p.test',
        '      token: "{{secret:PROVIDER_KEY}}"',
        '      headers: {X-Org: "{{secret:PROVIDER_ORG}}", X-Plain: plain-header-value-9, X-Api-Key: literal-key-42}',
        '    q: {endpoints: "http://q.test", token: plain-provider-token-7}',
      ].join('\n'),
    );
    const env = { PROVIDER_KEY: 'sk-provider-secret-1', PROVIDER_ORG: 'org-provider-55' };
    const intel = compileIn(dir, { files: [file], env }).intelligence;
    assert.equal(intel.providers['p']?.token, 'sk-provider-secret-1');
    assert.deepEqual(intel.providers['p']?.headers, {
      'X-Org': 'org-provider-55',
      'X-Plain': 'plain-header-value-9',
      'X-Api-Key': 'literal-key-42',
    });
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    log.info('loop.error', { providers: intel.providers });
    for (const secret of [...Object.values(env), 'literal-key-42', 'plain-provider-token-7']) {
      assert.ok(!lines[0]?.includes(secret), `${secret} in ${lines[0]}`);
    }
    // A header that is not a credential is configuration: registering it would shred ordinary text.
    assert.ok(lines[0]?.includes('"X-Plain":"plain-header-value-9"'), lines[0]);
    assert.match(lines[0] ?? '', /\[redacted\]/);
  });

  it('names a missing provider secret with file:line, never a value', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      'intelligence:\n  providers:\n    p:\n      endpoints: http://p.test\n      token: "{{secret:NOPE}}"\n',
    );
    assert.equal(
      compileError(dir, { files: [file] }),
      "a.yaml:5: intelligence.providers.p.token: secret 'NOPE' not set in the environment",
    );
  });

  it('refuses bad providers and model declarations with file:line and the key path', () => {
    const cases: [string[], string][] = [
      [['    x: {kind: chat}'], 'a.yaml:10: intelligence.models.x: expected model (the wire model id)'],
      [
        ['    x: {model: m, kind: big}'],
        'a.yaml:10: intelligence.models.x.kind: expected one of chat, reasoning, decision, got "big"',
      ],
      [
        ['    x: {model: m, reasoning: {effort: high}}'],
        'a.yaml:10: intelligence.models.x.reasoning: only for kind reasoning (this model is chat)',
      ],
      [
        ['    x: {model: m, kind: reasoning, reasoning: {effort: max}}'],
        'a.yaml:10: intelligence.models.x.reasoning.effort: expected one of low, medium, high, got "max"',
      ],
      [
        ['    x: {model: m, window: 0}'],
        'a.yaml:10: intelligence.models.x.window: expected a positive integer (tokens), got 0',
      ],
      [['    x: {model: m, windw: 5}'], "a.yaml:10: intelligence.models.x.windw: unknown key (did you mean 'window'?)"],
      [
        ['    x: {model: m, provider: anthropc}'],
        "a.yaml:10: intelligence.models.x.provider: 'anthropc' is not a declared provider (declared: anthropic)",
      ],
      [
        ['    x: {model: m, fallback: nowhere}'],
        "a.yaml:10: intelligence.models.x.fallback: 'nowhere' is not a declared model (declared: smart, fast, deep, judge, x)",
      ],
    ];
    for (const [extra, expected] of cases) assert.equal(errorWith(extra), expected);
  });

  it('requires endpoints on a provider', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence:\n  providers:\n    p:\n      dialect: anthropic\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      'a.yaml:3: intelligence.providers.p.endpoints: a provider needs at least one endpoint (a URL or a list of URLs)',
    );
    const bad = writeConfig(dir, 'b.yaml', 'intelligence:\n  providers:\n    p:\n      endpoints: [ftp://x]\n');
    assert.equal(
      compileError(dir, { files: [bad] }),
      'b.yaml:4: intelligence.providers.p.endpoints[0]: expected an http:// or https:// URL',
    );
  });

  it('refuses a fallback cycle once, naming the whole cycle', () => {
    const message = errorWith([
      '    a: {model: m1, fallback: b}',
      '    b: {model: m2, fallback: c}',
      '    c: {model: m3, fallback: a}',
      '    d: {model: m4, fallback: a}',
      '    e: {model: m5, fallback: e}',
    ]);
    assert.equal(
      message,
      'a.yaml:10: intelligence.models.a.fallback: fallback cycle a → b → c → a; ' +
        'a.yaml:14: intelligence.models.e.fallback: fallback cycle e → e',
    );
  });

  it('keeps structured keys file-only and lists the new keys', () => {
    const keys = new Map(describeConfigKeys().map((key) => [key.path, key]));
    for (const path of ['intelligence.providers', 'intelligence.models', 'intelligence.routes']) {
      assert.equal(keys.get(path)?.env, null, path);
    }
    assert.equal(keys.get('intelligence.roles.think')?.env, 'AGENTD_INTELLIGENCE_ROLES_THINK');
    assert.equal(keys.get('intelligence.structured_output')?.default, '"native"');
    assert.equal(keys.get('intelligence.prompt_cache_key')?.default, '"auto"');
    assert.equal(keys.get('intelligence.prompt_cache_key')?.env, 'AGENTD_INTELLIGENCE_PROMPT_CACHE_KEY');
  });

  it('prompt_cache_key: auto by default, a provider inherits it or keeps its own, a bad value is refused', () => {
    const dir = tempDir();
    const file = writeConfig(
      dir,
      'a.yaml',
      [
        'intelligence:',
        '  providers:',
        '    a: {endpoints: "http://a.test"}',
        '    b: {endpoints: "http://b.test", prompt_cache_key: on}',
      ].join('\n'),
    );
    const intel = compileIn(dir, { files: [file] }).intelligence;
    assert.equal(intel.prompt_cache_key, 'auto');
    assert.equal(intel.providers['a']?.prompt_cache_key, 'auto');
    assert.equal(intel.providers['b']?.prompt_cache_key, 'on');
    const off = compileIn(dir, { files: [file], env: { AGENTD_INTELLIGENCE_PROMPT_CACHE_KEY: 'off' } }).intelligence;
    assert.equal(off.providers['a']?.prompt_cache_key, 'off');
    assert.match(errorWith(['  prompt_cache_key: always']), /intelligence\.prompt_cache_key/);
  });
});

describe('intelligence roles', () => {
  it('reads roles as aliases or as {model, confidence} for preflight', () => {
    const intel = compileWith([
      '  roles:',
      '    turn: smart',
      '    preflight: {model: judge, confidence: 0.6}',
    ]).intelligence;
    assert.deepEqual(intel.roles, {
      turn: 'smart',
      preflight: 'judge',
      preflight_confidence: 0.6,
      compaction: null,
      think: null,
      decide: null,
    });
  });

  it('sets role scalars from the environment', () => {
    const env = { AGENTD_INTELLIGENCE_ROLES_THINK: 'fast', AGENTD_INTELLIGENCE_ROLES_PREFLIGHT_CONFIDENCE: '0.25' };
    const intel = compileWith([], env).intelligence;
    assert.equal(intel.roles.think, 'fast');
    assert.equal(intel.roles.preflight_confidence, 0.25);
  });

  it('refuses a confidence on any role but preflight, and one outside [0, 1]', () => {
    assert.equal(
      errorWith(['  roles:', '    think: {model: fast, confidence: 0.5}']),
      'a.yaml:11: intelligence.roles.think.confidence: unknown key (expected model; only preflight takes a confidence)',
    );
    assert.equal(
      errorWith(['  roles:', '    preflight: {model: fast, confidence: 1.5}']),
      'a.yaml:11: intelligence.roles.preflight_confidence: expected a number in [0, 1] or null, got 1.5',
    );
  });

  it('refuses a role naming an undeclared model', () => {
    assert.equal(
      errorWith(['  roles:', '    think: big']),
      "a.yaml:11: intelligence.roles.think: 'big' is not a declared model (declared: smart, fast, deep, judge)",
    );
    assert.equal(
      errorWith(['  roles:', '    turn: gpt-4o']),
      "a.yaml:11: intelligence.roles.turn: 'gpt-4o' is not a declared model (declared: smart, fast, deep, judge)",
    );
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence:\n  roles: {think: big}\n');
    assert.equal(
      compileError(dir, { files: [file] }),
      "a.yaml:2: intelligence.roles.think: 'big' is not a declared model (no models are declared)",
    );
  });

  it('takes intelligence.model as an alias or as a literal wire id', () => {
    assert.equal(compileWith(['  model: smart']).intelligence.model, 'smart');
    assert.equal(compileWith(['  model: gpt-4o']).intelligence.model, 'gpt-4o');
  });

  it('refuses a model kind the job cannot use', () => {
    const cases: [string, string][] = [
      [
        '    turn: judge',
        "intelligence.roles.turn: 'judge' is a decision model; the turn runs on chat or reasoning models",
      ],
      [
        '    preflight: deep',
        "intelligence.roles.preflight: 'deep' is a reasoning model; preflight runs on chat or decision models",
      ],
      [
        '    compaction: judge',
        "intelligence.roles.compaction: 'judge' is a decision model; compaction runs on chat or reasoning models",
      ],
      [
        '    think: judge',
        "intelligence.roles.think: 'judge' is a decision model; think runs on chat or reasoning models",
      ],
      [
        '    decide: deep',
        "intelligence.roles.decide: 'deep' is a reasoning model; decide runs on decision or chat models",
      ],
    ];
    for (const [role, problem] of cases) assert.equal(errorWith(['  roles:', role]), `a.yaml:11: ${problem}`);
    assert.equal(
      errorWith(['  model: judge']),
      "a.yaml:10: intelligence.model: 'judge' is a decision model; the turn runs on chat or reasoning models",
    );
  });

  it('holds roles that default to the turn model to their own job', () => {
    assert.equal(
      errorWith(['  roles: {turn: deep, compaction: fast}']),
      "a.yaml:10: intelligence.roles.preflight: unset, so it is the turn model 'deep', a reasoning model; " +
        'preflight runs on chat or decision models (set intelligence.roles.preflight); ' +
        "a.yaml:10: intelligence.roles.decide: unset, so it is the turn model 'deep', a reasoning model; " +
        'decide runs on decision or chat models (set intelligence.roles.decide)',
    );
    const fine = compileWith(['  roles: {turn: deep, preflight: fast, decide: judge}']).intelligence.roles;
    assert.equal(fine.turn, 'deep');
  });

  it('does not hold an unused preflight role to its job under agent.preflight: never', () => {
    assert.equal(
      errorWith(['  roles: {turn: deep}', 'agent: {preflight: never}']),
      "a.yaml:10: intelligence.roles.decide: unset, so it is the turn model 'deep', a reasoning model; " +
        'decide runs on decision or chat models (set intelligence.roles.decide)',
    );
  });

  it('lets --model (a later layer) override a file roles.turn', () => {
    const intel = compileWith(['  roles: {turn: smart}'], {}, 'fast').intelligence;
    assert.equal(intel.model, 'fast');
    assert.equal(intel.roles.turn, null);
    const literal = compileWith(['  roles: {turn: smart}'], {}, 'gpt-4o').intelligence;
    assert.equal(literal.roles.turn, null);
    const sameFile = compileWith(['  model: fast', '  roles: {turn: smart}']).intelligence;
    assert.equal(sameFile.roles.turn, 'smart');
    assert.equal(
      errorWith(['  roles: {turn: smart}'], { AGENTD_INTELLIGENCE_MODEL: 'judge' }),
      "AGENTD_INTELLIGENCE_MODEL: intelligence.model: 'judge' is a decision model; the turn runs on chat or reasoning models",
    );
  });
});

describe('intelligence routes', () => {
  it('reads routes to declared chat and reasoning models', () => {
    const routes = compileWith(['  routes:', '    deep: careful multi-step work', '    fast: quick chat']).intelligence
      .routes;
    assert.deepEqual(routes, { deep: 'careful multi-step work', fast: 'quick chat' });
  });

  it('refuses a route to an undeclared model or one that cannot run a turn', () => {
    assert.equal(
      errorWith(['  routes:', '    big: anything']),
      "a.yaml:11: intelligence.routes.big: 'big' is not a declared model (declared: smart, fast, deep, judge)",
    );
    assert.equal(
      errorWith(['  routes:', '    judge: anything']),
      "a.yaml:11: intelligence.routes.judge: 'judge' is a decision model; a route runs the turn, on chat or reasoning models",
    );
    assert.equal(
      errorWith(['  routes:', '    deep: {text: x}']),
      'a.yaml:11: intelligence.routes.deep: expected a string, got a mapping',
    );
  });

  it('refuses routes beside agent.preflight: never', () => {
    assert.equal(
      errorWith(['  routes:', '    deep: careful work', 'agent:', '  preflight: never']),
      'a.yaml:10: intelligence.routes: routes need preflight (agent.preflight is "never")',
    );
    assert.equal(
      errorWith(['  routes:', '    deep: careful work'], { AGENTD_AGENT_PREFLIGHT: 'never' }),
      'a.yaml:10: intelligence.routes: routes need preflight (agent.preflight is "never")',
    );
  });
});
