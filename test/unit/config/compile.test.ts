import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig, describeConfigKeys, jobStoreDefaulted } from '../../../src/config/compile.js';
import type { Config, ConfigFlags } from '../../../src/config/types.js';
import { compileIn, tempDir, writeConfig } from './configFiles.js';

function expectedDefaults(storePath: string): Config {
  return {
    agent: {
      name: 'agentd',
      instruction: '',
      instruction_files: [],
      prompt: null,
      preflight: 'auto',
      max_parallel_turns: 4,
      warm_workers: 1,
      worker_max_turns: 100,
      worker_max_rss: 268_435_456,
      tools: {
        internal: 'all',
        mcp: 'all',
        code: 'all',
        on_demand: ['memory', 'plan', 'goal', 'side', 'subagent', 'workflow'],
      },
      ask_human_fallback: 'fail',
      wake_on: ['a2a_message', 'human_reply', 'subagent_result', 'workflow_failed'],
      on_workflow_finished: 'ignore',
      conversation_budget: null,
    },
    mcp: { servers: {}, call_timeout: 600_000 },
    security: { policies: [], read_only_tools: [], allow_trifecta: false },
    intelligence: {
      endpoints: [],
      token: null,
      model: 'gpt-4o-mini',
      dialect: 'openai',
      headers: {},
      auth: null,
      timeout: 120_000,
      structured_output: 'native',
      prompt_cache_key: 'auto',
      providers: {},
      models: {},
      roles: { turn: null, preflight: null, preflight_confidence: null, compaction: null, think: null, decide: null },
      routes: {},
      budget: null,
    },
    limits: {
      run: { steps: 500, tokens: 2_000_000, deadline: 3_600_000 },
      max_message_depth: 8,
      subagents: { depth: 3, breadth: 8, total: 64, rate: '8/2s', per_caller: 0 },
      workflow: { fan_out: 8 },
      inline_max_bytes: 65_536,
    },
    subagents: { allow_freeform: true, templates: {}, keep: 256, keep_for: 86_400_000 },
    context: {
      compact_at: 0.7,
      keep_last: 12,
      model_window: null,
      plan: { max_items: 32 },
      template: null,
      summarize: { prompt: null },
    },
    knowledge: { auto_context: { on: 'never', top_k: 5, max_bytes: 16_384 }, server: null },
    search: { provider: { url: null, key: null } },
    skills: { sources: [], max_loaded: 8, max_bytes: 32_768, reference_prefix: '@skill:' },
    tools: { overrides: {} },
    store: {
      kind: 'sqlite',
      path: storePath,
      conversation_cache: { entries: 500, bytes: 67_108_864 },
      min_free: 256_000_000,
      integrity_check: 'quick',
      url: null,
      pool_size: 10,
      lease_ttl: 15_000,
      journal_retain: 604_800_000,
    },
    lifecycle: {
      drain_timeout: 25_000,
      run_until: 'auto',
      idle_grace: 5_000,
      pong_timeout: 10_000,
      progress_timeout: 120_000,
    },
    observability: { log_level: 'info', log_content: false, metrics_addr: null, otlp_endpoint: null },
    workflows: [],
    a2a: {
      listen: null,
      tls: null,
      principals: [],
      max_body_bytes: 1_048_576,
      max_connections: 512,
      header_timeout: 10_000,
      body_timeout: 30_000,
      max_long_requests: 64,
      card: { name: null, description: 'agentd: a durable agent daemon' },
      feed: { retain_events: 10_000, retain_age: 604_800_000 },
      tasks: { retain: 1_000, retain_age: 604_800_000 },
      pairing: { enabled: false, role: 'operator', ttl: 43_200_000 },
      origins: [],
      peers: {},
    },
  };
}

describe('compileConfig', () => {
  it('returns every default when given nothing', () => {
    const dir = tempDir();
    assert.deepEqual(compileIn(dir), expectedDefaults(join(dir, '.agentd')));
  });

  it('gives a one-shot job the memory store unless a store is named; a daemon keeps sqlite at the default path', () => {
    const dir = tempDir();
    const job = (s: { files?: string[]; env?: Record<string, string>; flags?: ConfigFlags } = {}) =>
      compileConfig({ files: s.files ?? [], env: s.env ?? {}, flags: s.flags ?? {}, cwd: dir, oneShot: true }).store;
    const where = (s: Parameters<typeof job>[0]) => ({ kind: job(s).kind, path: job(s).path });
    assert.equal(job().kind, 'memory');
    assert.equal(compileIn(dir).store.kind, 'sqlite', 'an embedder (no oneShot) keeps the default');
    assert.equal(job({ env: { AGENTD_STATE_DIR: 'state' } }).kind, 'sqlite');
    assert.equal(job({ env: { AGENTD_STORE_PATH: 'state' } }).kind, 'sqlite');
    assert.deepEqual(where({ flags: { stateDir: 'kept' } }), { kind: 'sqlite', path: join(dir, 'kept') });
    const kind = writeConfig(dir, 'kind.yaml', 'store: {kind: sqlite}\n');
    assert.equal(job({ files: [kind] }).kind, 'sqlite');
    const daemon = writeConfig(dir, 'daemon.yaml', 'a2a: {listen: "http://127.0.0.1:0"}\n');
    assert.deepEqual(where({ files: [daemon] }), { kind: 'sqlite', path: join(dir, '.agentd') });
  });

  it('counts only store.kind and store.path as naming a store; other store keys tune whichever there is', () => {
    // Premise: any `store.*` key counted, so a cache size made a job durable in ./.agentd.
    const dir = tempDir();
    const compileJob = (files: string[]) => compileConfig({ files, env: {}, flags: {}, cwd: dir, oneShot: true });
    const cache = compileJob([writeConfig(dir, 'cache.yaml', 'store: {conversation_cache: {entries: 10}}\n')]);
    assert.equal(cache.store.kind, 'memory');
    assert.equal(jobStoreDefaulted(cache), true);
    const memory = compileJob([writeConfig(dir, 'memory.yaml', 'store: {kind: memory}\n')]);
    assert.equal(memory.store.kind, 'memory');
    assert.equal(jobStoreDefaulted(memory), false, 'the user chose memory: not a default to explain');
    assert.equal(compileJob([writeConfig(dir, 'path.yaml', 'store: {path: kept}\n')]).store.kind, 'sqlite');
  });

  it('merges files in order: objects merge deeply, lists and scalars replace', () => {
    const dir = tempDir();
    const a = writeConfig(
      dir,
      'a.yaml',
      [
        'agent: {name: first, instruction: be brief}',
        'intelligence:',
        '  endpoints: [http://a.test, http://b.test]',
        '  headers: {X-One: "1", X-Two: "2"}',
        'limits: {run: {steps: 10, tokens: 5}}',
      ].join('\n'),
    );
    const b = writeConfig(
      dir,
      'b.yaml',
      [
        'agent: {name: second}',
        'intelligence:',
        '  endpoints: https://c.test',
        '  headers: {X-Two: "two"}',
        'limits: {run: {steps: 20}}',
      ].join('\n'),
    );
    const config = compileIn(dir, { files: [a, b] });
    assert.equal(config.agent.name, 'second');
    assert.equal(config.agent.instruction, 'be brief');
    assert.deepEqual(config.intelligence.endpoints, ['https://c.test']);
    assert.deepEqual(config.intelligence.headers, { 'X-One': '1', 'X-Two': 'two' });
    assert.deepEqual(config.limits.run, { steps: 20, tokens: 5, deadline: 3_600_000 });
  });

  it('layers defaults < files < env < flags', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence: {model: from-file}\nagent: {prompt: file-prompt}\n');
    const env = { AGENTD_INTELLIGENCE_MODEL: 'from-env', AGENTD_AGENT_PROMPT: 'env-prompt' };
    assert.equal(compileIn(dir, { files: [file] }).intelligence.model, 'from-file');
    const withEnv = compileIn(dir, { files: [file], env });
    assert.equal(withEnv.intelligence.model, 'from-env');
    assert.equal(withEnv.agent.prompt, 'env-prompt');
    const withFlags = compileIn(dir, { files: [file], env, flags: { model: 'from-flag' } });
    assert.equal(withFlags.intelligence.model, 'from-flag');
    assert.equal(withFlags.agent.prompt, 'env-prompt');
  });

  it('reads AGENTD_<PATH> for keys whose names contain underscores', () => {
    const config = compileIn(tempDir(), {
      env: { AGENTD_LIMITS_RUN_STEPS: '2', AGENTD_AGENT_MAX_PARALLEL_TURNS: '8', AGENTD_STORE_KIND: 'memory' },
    });
    assert.equal(config.limits.run.steps, 2);
    assert.equal(config.agent.max_parallel_turns, 8);
    assert.equal(config.store.kind, 'memory');
  });

  it('coerces env text to each key type', () => {
    const config = compileIn(tempDir(), {
      env: {
        AGENTD_OBSERVABILITY_LOG_CONTENT: 'true',
        AGENTD_CONTEXT_COMPACT_AT: '0.5',
        AGENTD_CONTEXT_MODEL_WINDOW: '128000',
        AGENTD_INTELLIGENCE_TIMEOUT: '1.5s',
        AGENTD_INTELLIGENCE_ENDPOINTS: 'http://a.test, https://b.test',
        AGENTD_INTELLIGENCE_DIALECT: 'anthropic',
      },
    });
    assert.equal(config.observability.log_content, true);
    assert.equal(config.context.compact_at, 0.5);
    assert.equal(config.context.model_window, 128_000);
    assert.equal(config.intelligence.timeout, 1_500);
    assert.deepEqual(config.intelligence.endpoints, ['http://a.test', 'https://b.test']);
    assert.equal(config.intelligence.dialect, 'anthropic');
  });

  it('ignores AGENTD_* variables that are not config keys', () => {
    const env = { AGENTD_TEST_CRASH_AT: 'x', AGENTD_NOT_A_KEY: 'y', AGENTD_INTELLIGENCE_HEADERS: 'z' };
    const dir = tempDir();
    assert.deepEqual(compileIn(dir, { env }), expectedDefaults(join(dir, '.agentd')));
  });

  it('maps every flag onto its key', () => {
    const config = compileIn(tempDir(), {
      flags: {
        prompt: 'hi',
        instruction: 'be kind',
        model: 'm',
        intelligence: 'http://a.test,http://b.test',
        deadline: '90s',
      },
    });
    assert.equal(config.agent.prompt, 'hi');
    assert.equal(config.agent.instruction, 'be kind');
    assert.equal(config.intelligence.model, 'm');
    assert.deepEqual(config.intelligence.endpoints, ['http://a.test', 'http://b.test']);
    assert.equal(config.limits.run.deadline, 90_000);
  });

  it('reads durations as text or YAML seconds, flooring the deadline at one second', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'intelligence: {timeout: 30}\nlimits: {run: {deadline: 250ms}}\n');
    const config = compileIn(dir, { files: [file] });
    assert.equal(config.intelligence.timeout, 30_000);
    assert.equal(config.limits.run.deadline, 1_000);
  });

  it('defaults store.path to $AGENTD_STATE_DIR, resolved against cwd', () => {
    const dir = tempDir();
    assert.equal(compileIn(dir, { env: { AGENTD_STATE_DIR: 'state' } }).store.path, join(dir, 'state'));
    assert.equal(compileIn(dir, { env: { AGENTD_STATE_DIR: '/var/agentd' } }).store.path, '/var/agentd');
    const file = writeConfig(dir, 'a.yaml', 'store: {path: ./elsewhere}\n');
    assert.equal(
      compileIn(dir, { files: [file], env: { AGENTD_STATE_DIR: 'state' } }).store.path,
      join(dir, 'elsewhere'),
    );
  });

  it('returns a deeply frozen object', () => {
    const config = compileIn(tempDir(), { flags: { intelligence: 'http://a.test' } });
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.limits.run));
    assert.ok(Object.isFrozen(config.intelligence.endpoints));
    assert.ok(Object.isFrozen(config.intelligence.headers));
    assert.throws(() => {
      (config.limits.run as { steps: number }).steps = 1;
    }, TypeError);
  });

  it('does not share defaults between compiled configs', () => {
    const dir = tempDir();
    const one = compileIn(dir);
    const two = compileIn(dir, { flags: { intelligence: 'http://a.test' } });
    assert.deepEqual(one.intelligence.endpoints, []);
    assert.notEqual(one.intelligence.headers, two.intelligence.headers);
  });

  it('writes nothing to disk', () => {
    const dir = tempDir();
    const file = writeConfig(dir, 'a.yaml', 'store: {path: ./state}\n');
    const config = compileIn(dir, { files: [file] });
    assert.equal(existsSync(config.store.path), false);
    assert.deepEqual(readdirSync(dir), ['a.yaml']);
  });

  it('treats an empty file and empty sections as nothing set', () => {
    const dir = tempDir();
    const empty = writeConfig(dir, 'empty.yaml', '');
    const sections = writeConfig(dir, 'sections.yaml', 'agent:\nlimits:\n  run:\n');
    assert.deepEqual(compileIn(dir, { files: [empty, sections] }), expectedDefaults(join(dir, '.agentd')));
  });
});

describe('describeConfigKeys', () => {
  it('lists every key with its type and default', () => {
    const keys = describeConfigKeys();
    const paths = keys.map((k) => k.path);
    assert.equal(new Set(paths).size, paths.length);
    assert.ok(paths.includes('agent.max_parallel_turns'));
    const deadline = keys.find((k) => k.path === 'limits.run.deadline');
    assert.deepEqual(deadline && [deadline.type, deadline.default, deadline.env, deadline.flag], [
      'duration',
      '1h',
      'AGENTD_LIMITS_RUN_DEADLINE',
      '--deadline',
    ]);
    const envNames = keys.flatMap((k) => (k.env ? [k.env] : []));
    assert.equal(new Set(envNames).size, envNames.length, 'env names must not collide');
  });
});
