// Preflight and routing with real think children (reference §6, §5.2): when it runs, what a verdict does, which
// model the turn then runs on, and that a failed preflight never gates the message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startRig } from '../harness.js';
import { within } from '../wait.js';
import { isPreflight, modelOf, turnRequests } from './requests.js';

const OP = 'operator';
const TASK = { intent: 'task', needs_plan: false, risk: 'low' };

async function ask(rig: Awaited<ReturnType<typeof startRig>>, ctx: string, text: string) {
  const event = (await rig.sup.accept({ context_id: ctx, text, principal: OP })).record;
  assert.ok(event);
  return within(rig.sup.outcomeOf(event.id), 30_000, `the answer to ${ctx}`);
}

describe('preflight', () => {
  it('under auto preflights a 281-character message and "please fix …", not a 280-character chat', async () => {
    const rig = await startRig({
      turns: [{ content: 'answered' }],
      match: [{ when_contains: 'PREFLIGHT.', content: TASK }],
    });
    try {
      for (const [ctx, text] of [
        ['long', 'x'.repeat(281)],
        ['fix', 'please fix the login page'],
        ['chat', 'y'.repeat(280)],
      ] as const) {
        const outcome = await ask(rig, ctx, text);
        assert.equal(outcome.reply, 'answered');
      }
      assert.deepEqual(
        rig.named('preflight.start').map((e) => e.ctx),
        ['long', 'fix'],
      );
      assert.equal(rig.named('preflight.verdict').length, 2);
      assert.equal(rig.model.requests.filter(isPreflight).length, 2);
      assert.equal(turnRequests(rig.model.requests).length, 3, 'every message still got its turn');
    } finally {
      await rig.close();
    }
  });

  it('answers a status message without a turn and spawns no turn worker', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'a turn ran' }],
        match: [{ when_contains: 'PREFLIGHT.', content: { ...TASK, intent: 'status' } }],
      },
      { AGENTD_AGENT_PREFLIGHT: 'always' },
    );
    try {
      const outcome = await ask(rig, 's', 'how are you doing?');
      assert.equal(outcome.status, 'completed');
      assert.match(outcome.reply, /^Status: \d+ running turns, \d+ queued messages, \d+ conversations/);
      assert.equal(rig.named('turn.spawn').length, 0, 'no turn worker');
      assert.equal(turnRequests(rig.model.requests).length, 0, 'no turn called the model');
      assert.equal(rig.named('turn.reply')[0]?.deterministic, true);
      const last = rig.sup.conversation('s')?.messages.at(-1);
      assert.equal(last?.role === 'assistant' ? last.text : '', outcome.reply);
    } finally {
      await rig.close();
    }
  });

  it('asks clarifying questions back without acting', async () => {
    const clarify = { ...TASK, intent: 'clarify', clarifications: ['Which repository?', 'Which branch?'] };
    const rig = await startRig({
      turns: [{ content: 'a turn ran' }],
      match: [{ when_contains: 'PREFLIGHT.', content: clarify }],
    });
    try {
      const outcome = await ask(rig, 'c', 'please fix it');
      assert.equal(outcome.reply, 'Before I act, please clarify:\n- Which repository?\n- Which branch?');
      assert.equal(rig.named('turn.spawn').length, 0);
      assert.equal(turnRequests(rig.model.requests).length, 0);
    } finally {
      await rig.close();
    }
  });

  it('seeds a plan when the verdict needs one and the conversation has none', async () => {
    const verdict = { ...TASK, needs_plan: true, plan: [{ title: 'Reproduce' }, { title: 'Patch', detail: 'small' }] };
    const rig = await startRig({
      turns: [{ content: 'on it' }],
      match: [{ when_contains: 'PREFLIGHT.', content: verdict }],
    });
    try {
      const text = `please fix the flaky test ${'z'.repeat(150)}`;
      await ask(rig, 'p', text);
      const plan = rig.sup.conversation('p')?.plan;
      assert.equal(plan?.goal, text.slice(0, 120));
      assert.deepEqual(
        plan?.items.map((i) => i.title),
        ['Reproduce', 'Patch'],
      );
      assert.equal(rig.named('plan.updated')[0]?.op, 'preflight');
      const turn = JSON.stringify(turnRequests(rig.model.requests)[0]?.body);
      assert.match(turn, /Plan \(0\/2 done\)/, 'the turn sees the seeded plan');
    } finally {
      await rig.close();
    }
  });

  it('never gates: a preflight that fails leaves the message to run with no verdict', async () => {
    const rig = await startRig({
      turns: [{ content: 'ran anyway' }],
      match: [{ when_contains: 'PREFLIGHT.', http_status: 400 }],
    });
    try {
      const outcome = await ask(rig, 'f', 'please fix the build');
      assert.equal(outcome.reply, 'ran anyway');
      assert.equal(rig.named('preflight.failed').length, 1);
      assert.equal(rig.named('preflight.verdict').length, 0);
    } finally {
      await rig.close();
    }
  });

  it('keeps messages of one conversation in order while the first is preflighted', async () => {
    const rig = await startRig({
      turns: [{ content: 'ok' }],
      match: [{ when_contains: 'PREFLIGHT.', content: TASK, delay_ms: 300 }],
    });
    try {
      const first = (await rig.sup.accept({ context_id: 'o', text: 'please fix one', principal: OP })).record;
      const second = (await rig.sup.accept({ context_id: 'o', text: 'and two', principal: OP })).record;
      assert.ok(first && second);
      await within(rig.sup.outcomeOf(second.id), 30_000, 'both answered');
      const users = rig.sup.conversation('o')?.messages.flatMap((m) => (m.role === 'user' ? [m.text] : []));
      assert.deepEqual(users, ['please fix one', 'and two']);
      const spawned = rig.named('turn.spawn').map((e) => e.inbox_event);
      assert.deepEqual(spawned, [first.id, second.id], 'the preflighted message still ran first');
    } finally {
      await rig.close();
    }
  });

  it('on a decision model asks one decision and leaves the plan to the turn, in a note', async () => {
    const q = (choice: string) => ({ choice, confidence: 0.9 });
    const rig = await startRig(
      {
        turns: [{ content: 'planned' }],
        match: [
          {
            when_contains: 'PREFLIGHT.',
            content: { intent: q('task'), needs_plan: q('yes'), risk: q('medium') },
          },
        ],
      },
      {},
      { yaml: 'intelligence: {models: {triage: {model: triage-model, kind: decision}}, roles: {preflight: triage}}' },
    );
    try {
      await ask(rig, 'd', 'please migrate the database');
      const preflight = rig.model.requests.find(isPreflight);
      assert.equal(modelOf(preflight), 'triage-model');
      assert.match(JSON.stringify(preflight?.body), /"choice"/);
      const notes = rig.sup.conversation('d')?.messages.flatMap((m) => (m.role === 'note' ? [m.text] : []));
      assert.ok(notes?.some((n) => /write one with plan\.create/.test(n)));
      assert.equal(rig.sup.conversation('d')?.plan, null, 'a decision model writes no plan itself');
    } finally {
      await rig.close();
    }
  });
});

describe('routing', () => {
  const yaml = [
    'intelligence:',
    '  models: {deep: {model: deep-model}}',
    '  routes: {deep: careful multi-step work}',
    '  roles: {preflight: {confidence: 0.6}}',
  ].join('\n');

  it('sends the turn to the chosen route; an unsure route keeps roles.turn', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'done' }],
        match: [
          {
            when_contains: 'PREFLIGHT.',
            times: 1,
            content: { ...TASK, confidence: 0.9, route: 'deep', route_confidence: 0.95 },
          },
          {
            when_contains: 'PREFLIGHT.',
            times: 1,
            content: { ...TASK, confidence: 0.9, route: 'deep', route_confidence: 0.2 },
          },
        ],
      },
      {},
      { yaml },
    );
    try {
      await ask(rig, 'r1', 'please investigate the failed deploy');
      await ask(rig, 'r2', 'please investigate the other one');
      const preflight = rig.model.requests.find(isPreflight);
      assert.match(JSON.stringify(preflight?.body), /deep: careful multi-step work/, 'the criterion is offered');
      const turns = turnRequests(rig.model.requests);
      assert.deepEqual(turns.map(modelOf), ['deep-model', 'test-model']);
      assert.deepEqual(
        rig.named('turn.routed').map((e) => [e.ctx, e.route]),
        [['r1', 'deep']],
      );
      assert.deepEqual(
        rig.named('preflight.route_unsure').map((e) => e.ctx),
        ['r2'],
      );
    } finally {
      await rig.close();
    }
  });

  it('a verdict under the preflight confidence is no verdict: the message runs as a task', async () => {
    const rig = await startRig(
      {
        turns: [{ content: 'ran' }],
        match: [{ when_contains: 'PREFLIGHT.', content: { ...TASK, intent: 'status', confidence: 0.1 } }],
      },
      {},
      { yaml },
    );
    try {
      const outcome = await ask(rig, 'u', 'please fix the status page');
      assert.equal(outcome.reply, 'ran', 'not answered as status');
      assert.equal(rig.named('preflight.verdict').length, 0);
    } finally {
      await rig.close();
    }
  });
});
