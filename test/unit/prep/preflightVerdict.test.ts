// The preflight verdict (reference §6.2–§6.4): schemas, readings under the role's confidence, effects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decisionVerdictSchema,
  INTENTS,
  preflightSystemPrompt,
  readVerdict,
  type VerdictAsk,
  verdictEffect,
  verdictSchema,
} from '../../../src/prep/preflightVerdict.js';

const chat: VerdictAsk = { kind: 'chat', routes: {}, skills: [], threshold: null };
const routed: VerdictAsk = { kind: 'chat', routes: { deep: 'careful work' }, skills: [], threshold: 0.6 };
const decision: VerdictAsk = {
  kind: 'decision',
  routes: { deep: 'careful work' },
  skills: ['deploy', 'review'],
  threshold: 0.6,
};
const q = (choice: string, confidence = 0.9) => ({ choice, confidence });

describe('verdictSchema', () => {
  it('has the seven intents and requires intent, needs_plan and risk', () => {
    const schema = verdictSchema(chat) as { properties: Record<string, { enum?: string[] }>; required: string[] };
    assert.deepEqual(schema.properties.intent?.enum, [...INTENTS]);
    assert.deepEqual(schema.required, ['intent', 'needs_plan', 'risk']);
    assert.equal(schema.properties.route, undefined);
  });

  it('offers the routes as an enum and asks for confidences under a threshold', () => {
    const schema = verdictSchema(routed) as { properties: Record<string, { enum?: string[] }>; required: string[] };
    assert.deepEqual(schema.properties.route?.enum, ['deep', 'none']);
    assert.ok(schema.required.includes('confidence') && schema.required.includes('route_confidence'));
  });
});

describe('decisionVerdictSchema', () => {
  it('asks every question as a choice with a confidence: intent, plan, risk, each skill, the route', () => {
    const schema = decisionVerdictSchema(decision) as { properties: Record<string, Record<string, unknown>> };
    assert.deepEqual(Object.keys(schema.properties), ['intent', 'needs_plan', 'risk', 'skills', 'route']);
    const skills = schema.properties.skills as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(skills.properties), ['deploy', 'review']);
  });
});

describe('readVerdict (chat)', () => {
  it('reads a verdict; a missing intent is a task', () => {
    const { verdict } = readVerdict({ needs_plan: true, plan: [{ title: 'a' }, { nope: 1 }], risk: 'low' }, chat);
    assert.equal(verdict?.intent, 'task');
    assert.deepEqual(verdict?.plan, [{ title: 'a' }]);
  });

  it('gives no verdict under the confidence, and drops an unsure route', () => {
    const low = readVerdict({ intent: 'chat', needs_plan: false, risk: 'low', confidence: 0.2 }, routed);
    assert.equal(low.verdict, null);
    const unsure = readVerdict(
      { intent: 'task', needs_plan: false, risk: 'low', confidence: 0.9, route: 'deep', route_confidence: 0.3 },
      routed,
    );
    assert.equal(unsure.verdict?.route, null);
    assert.equal(unsure.routeUnsure, true);
    const sure = readVerdict(
      { intent: 'task', needs_plan: false, risk: 'low', confidence: 0.9, route: 'deep', route_confidence: 0.8 },
      routed,
    );
    assert.equal(sure.verdict?.route, 'deep');
  });

  it('ignores a route that is not declared, and "none"', () => {
    assert.equal(readVerdict({ intent: 'task', route: 'none', confidence: 1 }, routed).verdict?.route, null);
    assert.equal(readVerdict({ intent: 'task', route: 'x', confidence: 1 }, routed).verdict?.route, null);
  });

  it('is no verdict for a non-object answer', () => {
    assert.equal(readVerdict('task', chat).verdict, null);
  });
});

describe('readVerdict (decision)', () => {
  it('turns a plan or a question it calls for into notes for the turn', () => {
    const value = { intent: q('clarify'), needs_plan: q('yes'), risk: q('high'), route: q('none') };
    const { verdict } = readVerdict(value, decision);
    assert.equal(verdict?.intent, 'clarify');
    assert.deepEqual(verdict?.clarifications, []);
    assert.equal(verdict?.notes.length, 2);
    assert.match(verdict?.notes[0] ?? '', /plan\.create/);
    assert.match(verdict?.notes[1] ?? '', /clarifying question/);
  });

  it('loads skills answered load above the confidence; routes like the chat path', () => {
    const value = {
      intent: q('task'),
      needs_plan: q('no'),
      risk: q('low'),
      skills: { deploy: q('load'), review: q('load', 0.1) },
      route: q('deep'),
    };
    const { verdict } = readVerdict(value, decision);
    assert.deepEqual(verdict?.skills, ['deploy']);
    assert.equal(verdict?.route, 'deep');
  });

  it('any core answer under the confidence is no verdict', () => {
    const value = { intent: q('status', 0.5), needs_plan: q('no'), risk: q('low'), route: q('deep') };
    assert.equal(readVerdict(value, decision).verdict, null);
  });
});

describe('verdictEffect', () => {
  const base = { needs_plan: false, plan: [], clarifications: [], risk: 'low' as const, skills: [], route: null };
  const notes: string[] = [];

  it('answers status without a turn', () => {
    assert.deepEqual(verdictEffect({ ...base, notes, intent: 'status' }, 'status?', false), { kind: 'status' });
  });

  it('asks clarifying questions back; clarify without questions runs the turn', () => {
    const effect = verdictEffect(
      { ...base, notes, intent: 'clarify', clarifications: ['Which?', 'When?'] },
      'x',
      false,
    );
    assert.deepEqual(effect, { kind: 'reply', text: 'Before I act, please clarify:\n- Which?\n- When?' });
    assert.equal(verdictEffect({ ...base, notes, intent: 'clarify' }, 'x', false).kind, 'turn');
  });

  it('seeds a plan (goal = the first 120 characters) only when the conversation has none', () => {
    const verdict = { ...base, notes, intent: 'task' as const, needs_plan: true, plan: [{ title: 'step' }] };
    const text = 'x'.repeat(200);
    const effect = verdictEffect(verdict, text, false);
    assert.equal(effect.kind === 'turn' && effect.seedPlan?.goal.length, 120);
    const kept = verdictEffect(verdict, text, true);
    assert.equal(kept.kind === 'turn' && kept.seedPlan, null);
  });
});

describe('preflightSystemPrompt', () => {
  it('names the instance, the routes with their criteria, the catalogue and the plan', () => {
    const text = preflightSystemPrompt('desk', routed, {
      catalogue: 'Available skills: x',
      plan: 'Plan (0/1 done): g',
    });
    assert.match(text, /^PREFLIGHT\. You triage messages for desk/);
    assert.match(text, /- deep: careful work/);
    assert.match(text, /Available skills: x/);
    assert.match(text, /Current plan:\nPlan \(0\/1 done\): g/);
  });
});
