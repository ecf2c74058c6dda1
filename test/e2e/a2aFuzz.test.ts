// Fuzz (issue 13): generated JSON-RPC envelopes, parts and metadata thrown at a real daemon's listener. Every
// answer is a well-formed JSON-RPC result or error (an SSE stream: every event), the daemon stays up, and its
// memory stays bounded. A fixed seed and a bounded number of runs keep it reproducible and under 30 s. A second
// daemon with principals is fuzzed as its callers: bearer tokens, junk ones and none (401), a user's operator
// commands (-31403) and another principal's tasks (-32001).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { JSON_V1, rawRequest } from '../integration/a2a/listenerHarness.js';
import { type Daemon, startOverModel } from './daemon.js';

const SEED = 1313;
const RUNS = 250;
const DEEP = '"__deep__"';
/** Codes the listener may answer (reference §17.1); never -32603: nothing here drains, so it would be a crash. */
const CODES = new Set([-32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32009, -31401, -31403]);
const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'CancelTask',
  'SubscribeToTask',
  'GetTask',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
] as const;
/** Every command but drain (which would stop the daemon under test). */
const OPS = ['status', 'pause', 'resume', 'mode', 'goal.set', 'goal.get', 'goal.clear', 'nope'];

const json = fc.jsonValue({ maxDepth: 4 });
/** Mostly `likely`, sometimes anything. */
const mostly = <T>(likely: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: likely }, { weight: 1, arbitrary: json as fc.Arbitrary<unknown> });
const id = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 3, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 1.5, -0) },
);
const text = fc.string({ minLength: 1, maxLength: 40 }).map((t) => `${t}.`);
const part = fc.oneof(
  { weight: 4, arbitrary: fc.record({ text }) },
  { weight: 2, arbitrary: fc.record({ data: json }) },
  { weight: 1, arbitrary: fc.record({ data: fc.constant('__deep__') }) },
  { weight: 1, arbitrary: fc.record({ data: fc.record({ agentd: fc.record({ op: fc.constantFrom(...OPS) }) }) }) },
  { weight: 1, arbitrary: fc.record({ url: fc.webUrl() }) },
  { weight: 1, arbitrary: fc.record({ text, metadata: fc.dictionary(fc.string({ maxLength: 8 }), json) }) },
);
const message = fc.record(
  {
    messageId: mostly(fc.string({ minLength: 1, maxLength: 10 })),
    contextId: mostly(fc.string({ maxLength: 10 })),
    taskId: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, fc.string({ maxLength: 10 })),
    role: fc.constantFrom('ROLE_USER', 'ROLE_USER', 'ROLE_AGENT', 7, 'x'),
    parts: mostly(fc.array(part, { minLength: 1, maxLength: 3 })),
    metadata: mostly(fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), json), fc.record({ 'agentd/mode': json }))),
  },
  { requiredKeys: ['parts', 'messageId'] },
);
const sendParams = fc.record({ message, configuration: fc.record({ returnImmediately: fc.boolean() }) });
const taskParams = fc.record({ id: mostly(fc.string({ minLength: 1, maxLength: 30 })), historyLength: json });
const listParams = fc.record(
  { pageSize: mostly(fc.integer({ min: -5, max: 200 })), pageToken: fc.string(), status: json, contextId: json },
  { requiredKeys: [] },
);
/** A method with params mostly of its own shape (else anything), or a name no method has. */
const call = fc.oneof(
  { weight: 4, arbitrary: fc.record({ method: fc.constantFrom(...METHODS.slice(0, 2)), params: mostly(sendParams) }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constantFrom(...METHODS.slice(2, 6)), params: mostly(taskParams) }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('ListTasks'), params: mostly(listParams) }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constantFrom(...METHODS.slice(6)), params: json }) },
  { weight: 1, arbitrary: fc.record({ method: fc.string({ maxLength: 20 }), params: json }) },
);
const envelope = fc
  .record({ jsonrpc: mostly(fc.constant('2.0')), id, call, nesting: fc.integer({ min: 1, max: 120_000 }) })
  .map(({ call: c, ...rest }) => ({ ...rest, ...c }));
/** An envelope as request text: a bigint id written as its digits, the deep marker as nested lists. */
const request = fc.oneof(
  { weight: 8, arbitrary: envelope.map(toText) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.array(envelope.map(toText), { maxLength: 3 }).map((list) => `[${list.join(',')}]`) },
);

function toText(e: { nesting: number; id?: unknown; [key: string]: unknown }): string {
  const { nesting, ...body } = e;
  const text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? `__big__${v}` : v));
  return text.replace(/"__big__(\d+)"/g, '$1').replace(DEEP, `${'['.repeat(nesting)}${']'.repeat(nesting)}`);
}

/** Asserts one JSON-RPC response object is well formed. */
function wellFormed(body: unknown, where: string): void {
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `${where}: an object`);
  const reply = body as Record<string, unknown>;
  assert.equal(reply['jsonrpc'], '2.0', where);
  assert.ok('id' in reply, `${where}: has an id`);
  assert.notEqual('result' in reply, 'error' in reply, `${where}: exactly one of result and error`);
  if ('error' in reply) {
    const error = reply['error'] as { code?: unknown; message?: unknown };
    assert.ok(CODES.has(error.code as number), `${where}: a known code, got ${String(error.code)}`);
    assert.equal(typeof error.message, 'string', where);
  }
}

/** Messages are only noted (no turn): the fuzz exercises the listener and the backend, not the model. */
const FUZZ_CONFIG = [
  'agent:',
  '  wake_on: [human_reply]',
  'a2a:',
  '  listen: http://127.0.0.1:0',
  '  max_body_bytes: 262144',
];

/** The daemon's resident set in bytes (Linux /proc). */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

describe('fuzzing the A2A listener', { timeout: 120_000 }, () => {
  let daemon: Daemon;
  let stop: () => Promise<void>;
  before(async () => {
    ({ daemon, stop } = await startOverModel(FUZZ_CONFIG));
  });
  after(() => stop());

  const property = fc.asyncProperty(request, async (text) => {
    const reply = await rawRequest(daemon.url, text, JSON_V1);
    assert.ok([200, 400, 403, 408, 413].includes(reply.status), `HTTP ${reply.status} for ${text.slice(0, 200)}`);
    if (String(reply.headers['content-type']).startsWith('text/event-stream')) {
      const events = reply.text.split('\n\n').filter((e) => e.startsWith('data: '));
      assert.ok(events.length > 0, 'a stream has events');
      for (const event of events) wellFormed(JSON.parse(event.slice('data: '.length)), 'event');
      return;
    }
    wellFormed(JSON.parse(reply.text), text.slice(0, 200));
    const big = /^\{"jsonrpc":"2\.0","id":(\d{16,})/.exec(text);
    if (big && !reply.text.includes('"id":null')) assert.ok(reply.text.includes(`"id":${big[1]}`), 'the id as sent');
  });

  it('answers every generated request well formed, stays up, and keeps its memory bounded', async () => {
    const pid = daemon.child.pid ?? 0;
    await fc.assert(property, { seed: SEED, numRuns: RUNS });
    const warm = rssOf(pid);
    await fc.assert(property, { seed: SEED + 1, numRuns: RUNS });
    const end = rssOf(pid);
    assert.equal(daemon.child.exitCode, null, 'the daemon is still running');
    const card = await rawRequest(daemon.url, null, {}, '/.well-known/agent-card.json');
    assert.equal(card.status, 200);
    assert.ok(end - warm < 64 * 1024 * 1024, `RSS grew ${Math.round((end - warm) / 1e6)} MB over ${RUNS} requests`);
    assert.ok(end < 512 * 1024 * 1024, `RSS ${Math.round(end / 1e6)} MB`);
  });
});

const TOKENS = { alice: 'alice-fuzz-token-123456', bob: 'bob-fuzz-token-12345678' };
/** Bob's tasks, made before the fuzz: alice's requests name them to probe the ownership paths. */
const bobTasks: string[] = [];
/** Error codes the principals' fuzz was answered with: each path it claims to cover must have been taken. */
const seenCodes = new Set<number>();
const caller = fc.constantFrom('alice', 'alice', 'alice', 'bob', 'junk', 'none');
const probe = fc
  .record({
    method: fc.constantFrom('GetTask', 'CancelTask', 'SubscribeToTask'),
    pick: fc.nat({ max: 1_000 }),
    id: fc.integer({ min: 1, max: 1_000 }),
  })
  .map(({ method, pick, id: n }) => ({ method, task: bobTasks[pick % Math.max(1, bobTasks.length)] ?? 'none', n }));

function headersFor(who: string): Record<string, string> {
  if (who === 'none') return JSON_V1;
  const token = who === 'alice' ? TOKENS.alice : who === 'bob' ? TOKENS.bob : 'junk-token-that-is-nobodys';
  return { ...JSON_V1, Authorization: `Bearer ${token}` };
}

describe('fuzzing the A2A listener as bearer-token principals', { timeout: 120_000 }, () => {
  let daemon: Daemon;
  let stop: () => Promise<void>;
  before(async () => {
    const lines = [
      ...FUZZ_CONFIG,
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      '    - {id: bob, role: user, match: {bearer: "{{secret:BOB_TOKEN}}"}}',
    ];
    ({ daemon, stop } = await startOverModel(lines, { ALICE_TOKEN: TOKENS.alice, BOB_TOKEN: TOKENS.bob }));
    for (const n of [1, 2, 3]) {
      const params = {
        message: { messageId: `bob-${n}`, parts: [{ text: 'mine' }] },
        configuration: { returnImmediately: true },
      };
      const body = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'SendMessage', params });
      const reply = await rawRequest(daemon.url, body, headersFor('bob'));
      bobTasks.push((reply.json()['result'] as { task: { id: string } }).task.id);
    }
  });
  after(() => stop());

  const property = fc.asyncProperty(
    caller,
    fc.oneof({ weight: 3, arbitrary: request }, { weight: 1, arbitrary: probe }),
    async (who, sent) => {
      const text =
        typeof sent === 'string'
          ? sent
          : JSON.stringify({ jsonrpc: '2.0', id: sent.n, method: sent.method, params: { id: sent.task } });
      const reply = await rawRequest(daemon.url, text, headersFor(who));
      assert.ok([200, 400, 401, 403, 408, 413].includes(reply.status), `HTTP ${reply.status} as ${who}`);
      if (who === 'none' || who === 'junk') {
        assert.equal(reply.status, 401, `${who}: refused before anything is read`);
        assert.equal((reply.json()['error'] as { code: number }).code, -31401);
        seenCodes.add(-31401);
        return;
      }
      if (String(reply.headers['content-type']).startsWith('text/event-stream')) {
        for (const event of reply.text.split('\n\n').filter((e) => e.startsWith('data: ')))
          wellFormed(JSON.parse(event.slice('data: '.length)), 'event');
        return;
      }
      const body = JSON.parse(reply.text) as Record<string, unknown>;
      wellFormed(body, `${who}: ${text.slice(0, 200)}`);
      const code = (body['error'] as { code?: number } | undefined)?.code;
      if (code !== undefined) seenCodes.add(code);
      if (typeof sent !== 'string' && who === 'alice') {
        assert.deepEqual(body['error'], { code: -32001, message: 'task not found' }, "bob's task is not alice's");
      }
    },
  );

  it('answers every caller well formed: 401 without a valid token, -31403 and -32001 where it is not theirs', async () => {
    await fc.assert(property, { seed: SEED + 2, numRuns: RUNS });
    assert.equal(daemon.child.exitCode, null, 'the daemon is still running');
    for (const code of [-31401, -31403, -32001]) assert.ok(seenCodes.has(code), `the fuzz reached ${code}`);
    const own = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: bobTasks[0] } });
    const mine = await rawRequest(daemon.url, own, headersFor('bob'));
    assert.equal((mine.json()['result'] as { id?: string } | undefined)?.id, bobTasks[0], 'premise: the task exists');
  });
});
