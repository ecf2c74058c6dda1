// CHAOS TEST (issue 19 acceptance; interfaces reference §4.4), bounded to about a minute and a half: 3 replicas of
// the built agentd over one real PostgreSQL take CHAOS_MESSAGES messages (default 300) over CHAOS_CONVERSATIONS
// conversations (default 30) from a client that sends each to a random replica and, when a send fails (the replica
// died), sends it again with the same messageId to another one. Meanwhile a replica is SIGKILLed at random every
// few seconds and started again. Every accepted message must be answered exactly once: one inbox row (done), one
// completed task, its user message once in the transcript and one reply per message.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, stopLazyServer } from '../../doubles/postgresServer.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { clientFor, userMessage } from '../../integration/a2a/listenerHarness.js';
import { within } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { replicaYaml } from './replicaFleet.js';

const MESSAGES = Number(process.env.CHAOS_MESSAGES ?? 300);
const CONVERSATIONS = Number(process.env.CHAOS_CONVERSATIONS ?? 30);
const KILLS = 4;
const KILL_EVERY_MS = 3_000;
/** How long the whole run may take before the test gives up. */
const RUN_MS = Number(process.env.CHAOS_RUN_MS ?? 120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fleet whose members die and come back: `slots[i]` is the live daemon of replica i, or null while it restarts. */
class Fleet {
  readonly slots: Array<Daemon | null> = [];
  readonly all: Daemon[] = [];
  constructor(
    private readonly url: string,
    private readonly yaml: string,
  ) {}

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) this.slots.push(await this.spawn());
  }

  async spawn(): Promise<Daemon> {
    const d = await startDaemon(tempStateDir(), this.yaml, { PG_URL: this.url });
    this.all.push(d);
    return d;
  }

  live(): Daemon[] {
    return this.slots.filter((d): d is Daemon => d !== null);
  }

  /** SIGKILLs replica `i` and starts it again (a new process, a new state dir: its leases are adopted). */
  async killAndRestart(i: number): Promise<void> {
    const d = this.slots[i];
    if (!d) return;
    this.slots[i] = null;
    if (d.child.exitCode !== null || d.child.signalCode !== null) {
      throw new Error(`replica ${i} died by itself (${d.child.exitCode}):\n${d.stderr().slice(-3000)}`);
    }
    const exited = new Promise((resolve) => d.child.once('exit', resolve));
    d.child.kill('SIGKILL');
    await within(exited, 10_000, 'the killed replica exits');
    this.slots[i] = await this.spawn();
  }
}

/** Sends one message until some replica accepts it, always with the same messageId and contextId. */
async function sendUntilAccepted(fleet: Fleet, messageId: string, contextId: string, text: string): Promise<number> {
  for (let attempt = 1; attempt <= 50; attempt++) {
    const live = fleet.live();
    const d = live[Math.floor(Math.random() * live.length)];
    if (d) {
      try {
        const client = await clientFor(d.url);
        const message = userMessage(text, { messageId, contextId });
        const request = { tenant: '', message, metadata: undefined };
        const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined };
        await within(
          client.sendMessage({ ...request, configuration: { ...configuration, returnImmediately: true } }),
          10_000,
          'send',
        );
        return attempt;
      } catch {
        // The replica died under the call (or was restarting): the same message goes to another one.
      }
    }
    await sleep(100);
  }
  throw new Error(`message ${messageId} was never accepted`);
}

/** The conversations whose user messages and replies do not pair up, each as its row of roles (a post-mortem). */
function unanswered(messages: Array<Record<string, unknown>>): string {
  const byConv = new Map<string, string[]>();
  for (const r of messages) {
    const m = JSON.parse(String(r.json)) as { role: string; text?: string; event?: string };
    const list = byConv.get(String(r.conversation_id)) ?? [];
    list.push(m.role === 'user' ? `u(${m.text}:${m.event})` : `${m.role[0]}(${String(m.text).slice(0, 20)})`);
    byConv.set(String(r.conversation_id), list);
  }
  const odd = [...byConv].filter(
    ([, l]) => l.filter((x) => x.startsWith('u(')).length !== l.filter((x) => x === 'a(answered)').length,
  );
  return JSON.stringify(odd);
}

async function rows(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql)).rows;
  } finally {
    await db.end();
  }
}

describe('CHAOS: 3 replicas, random SIGKILLs, every message answered exactly once', () => {
  let model: ScriptedModel;
  let url: string;
  let fleet: Fleet;
  before(async () => {
    url = await createTestDatabase('chaos');
    // A short model delay, so kills land inside turns as well as between them.
    model = await startScriptedModel({ turns: [{ content: 'answered', delay_ms: 100 }] });
    fleet = new Fleet(
      url,
      replicaYaml(model.url, '2s', process.env.CHAOS_DEBUG ? ['observability:', '  log_level: debug'] : []),
    );
  });
  after(async () => {
    // CHAOS_LOGS=<dir>: every replica's stderr is kept there, for a failure's post-mortem.
    const logs = process.env.CHAOS_LOGS;
    if (logs) for (const [i, d] of fleet.all.entries()) writeFileSync(path.join(logs, `replica-${i}.log`), d.stderr());
    for (const d of fleet.all)
      if (d.child.exitCode === null && d.child.signalCode === null) await d.stop().catch(() => {});
    await model.close();
    await stopLazyServer();
  });

  it(`${MESSAGES} messages over ${CONVERSATIONS} conversations, ${KILLS} SIGKILLs`, async () => {
    const started = Date.now();
    await fleet.start(3);
    const perConversation = Math.ceil(MESSAGES / CONVERSATIONS);
    let retried = 0;
    const sending = Array.from({ length: CONVERSATIONS }, async (_, c) => {
      for (let m = 0; m < perConversation && c * perConversation + m < MESSAGES; m++) {
        const attempts = await sendUntilAccepted(fleet, `chaos-${c}-${m}`, `chaos-ctx-${c}`, `message ${c}.${m}`);
        retried += attempts - 1;
        await sleep(50);
      }
    });
    const killing = (async () => {
      for (let k = 0; k < KILLS; k++) {
        await sleep(KILL_EVERY_MS);
        await fleet.killAndRestart(Math.floor(Math.random() * 3));
      }
    })();
    await within(Promise.all([...sending, killing]), RUN_MS, 'every message accepted and every kill done');
    const done = async () =>
      Number((await rows(url, "SELECT count(*)::int AS n FROM inbox WHERE status = 'done'"))[0]?.n) >= MESSAGES;
    while (!(await done())) {
      if (Date.now() - started > RUN_MS) {
        const states = await rows(url, 'SELECT status, count(*)::int AS n FROM inbox GROUP BY status');
        const leases = await rows(
          url,
          "SELECT l.*, (SELECT count(*) FROM inbox i WHERE i.conversation = l.conversation_id AND i.status = 'pending') AS pending FROM conversation_leases l",
        );
        process.stderr.write(`chaos: now ${Date.now()} leases ${JSON.stringify(leases)}\n`);
        assert.fail(`not every message was answered in time: ${JSON.stringify(states)}`);
      }
      await sleep(250);
    }
    process.stderr.write(`chaos: ${MESSAGES} messages, ${retried} resent, ${Date.now() - started} ms\n`);

    const inbox = await rows(url, 'SELECT conversation, status FROM inbox');
    assert.equal(inbox.length, MESSAGES, 'one inbox row per message (a resend is deduplicated)');
    assert.ok(inbox.every((r) => r.status === 'done'));
    const tasks = await rows(url, 'SELECT state FROM tasks');
    assert.equal(tasks.length, MESSAGES, 'one task per message');
    assert.deepEqual([...new Set(tasks.map((t) => t.state))], ['completed']);
    const messages = await rows(url, 'SELECT conversation_id, json FROM messages ORDER BY conversation_id, idx');
    const said = messages.map((r) => JSON.parse(String(r.json)) as { role: string; text?: string });
    const users = said.filter((m) => m.role === 'user').map((m) => m.text);
    if (users.length !== MESSAGES) {
      const seen = new Set(users);
      const missing =
        inbox.length === 0
          ? []
          : Array.from({ length: MESSAGES }, (_, i) => i).filter(
              (i) => !seen.has(`message ${Math.floor(i / perConversation)}.${i % perConversation}`),
            );
      process.stderr.write(`chaos: missing ${JSON.stringify(missing)}\n`);

      const ctx = `chaos-ctx-${Math.floor((missing[0] ?? 0) / perConversation)}`;
      const dump = messages
        .filter((r) => String(r.conversation_id).includes(ctx))
        .map((r) => String(r.json).slice(0, 300));
      const tasksOf = await rows(url, `SELECT id, state, conversation, json FROM tasks WHERE context_id = '${ctx}'`);
      process.stderr.write(
        `chaos: ${ctx}:\n${dump.join('\n')}\n${JSON.stringify(tasksOf.map((t) => [t.state, t.conversation]))}\n`,
      );
    }
    assert.equal(users.length, MESSAGES, 'each message once in its transcript');
    assert.equal(new Set(users).size, MESSAGES);
    const replies = said.filter((m) => m.role === 'assistant' && m.text === 'answered');
    if (replies.length !== MESSAGES) process.stderr.write(`chaos: transcripts ${unanswered(messages)}\n`);
    assert.equal(replies.length, MESSAGES, 'one reply per message, none doubled by a rerun');
    const adoptions = fleet.all.flatMap((d) => d.events.filter((e) => e.event === 'lease.adopted'));
    process.stderr.write(`chaos: ${adoptions.length} adoptions\n`);
  });
});
