// A subagent's tool plan and payload (reference §1.4): granted servers, the `tools` patterns, its own internal tools.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnSpec } from '../../../src/protocol/frames.js';
import { subagentTools } from '../../../src/subagents/subagentPayload.js';
import { callKey, respawnRuns } from '../../../src/subagents/subagentRecord.js';
import { emptyToolPlan, type ToolPlan } from '../../../src/tools/toolPlan.js';
import { nthRun } from '../../../src/worker/warmSession.js';
import { subagentRecord } from '../store/subagentBehaviour.js';

function plan(): ToolPlan {
  const p = emptyToolPlan();
  const def = (name: string) => ({ name, description: name, input_schema: { type: 'object' } });
  for (const name of ['finish', 'memory.get', 'plan.create', 'subagent.run', 'message.send']) {
    p.tools.push(def(name));
    p.internal.push(name);
  }
  for (const [name, server] of [
    ['a', 'one'],
    ['b', 'one'],
    ['c', 'two'],
  ] as const) {
    p.tools.push(def(name));
    p.mcp_routes[name] = [server, name];
  }
  p.tools.push(def('code1'));
  p.code.push('code1');
  return p;
}

const names = (t: { tools: Array<{ name: string }> }) => t.tools.map((d) => d.name);

describe('subagentTools', () => {
  it('keeps its own internal tools, every server and code tools without grants', () => {
    const record = subagentRecord({ spec: { ...subagentRecord().spec, allowed_tools: undefined } });
    assert.deepEqual(names(subagentTools(plan(), record, false)), ['finish', 'memory.get', 'a', 'b', 'c', 'code1']);
    assert.deepEqual(names(subagentTools(plan(), record, true)), [
      'finish',
      'memory.get',
      'subagent.run',
      'a',
      'b',
      'c',
      'code1',
    ]);
  });

  it('narrows to the granted servers, then to the tools patterns (P-4)', () => {
    const spec = { ...subagentRecord().spec, servers: ['one'], allowed_tools: ['a'] };
    const granted = subagentTools(plan(), subagentRecord({ spec }), true);
    assert.deepEqual(names(granted), ['a']);
    assert.deepEqual(granted.mcp_routes, { a: ['one', 'a'] });
    const prefix = { ...subagentRecord().spec, allowed_tools: ['memory.*', 'c'] };
    assert.deepEqual(names(subagentTools(plan(), subagentRecord({ spec: prefix }), true)), ['memory.get', 'c']);
    const none = { ...subagentRecord().spec, allowed_tools: [] };
    assert.deepEqual(names(subagentTools(plan(), subagentRecord({ spec: none }), true)), []);
  });
});

describe('callKey', () => {
  it('keeps a run under one key across respawns and gives each warm run its own', () => {
    const first = callKey({ handle: 'sub-4', runs: 0 }, 2);
    assert.equal(first, 'sub-4.run1#2');
    assert.notEqual(callKey({ handle: 'sub-4', runs: 1 }, 2), first, 'the next warm run');
  });
});

describe('respawnRuns', () => {
  it('replays a one-shot run, or a warm first run that never finished, under its own keys', () => {
    assert.equal(respawnRuns({ mode: 'async', runs: 0, keyed_runs: 1 }), 0);
    assert.equal(respawnRuns({ mode: 'warm', runs: 0, keyed_runs: 1 }), 0);
    assert.equal(respawnRuns({ mode: 'warm', runs: 0 }), 0, 'a record stored before keyed_runs');
  });

  it('numbers a warm restart past every run keyed before the crash, finished or not', () => {
    assert.equal(respawnRuns({ mode: 'warm', runs: 1, keyed_runs: 2 }), 2, 'run 2 was cut: the restart is run 3');
    assert.equal(respawnRuns({ mode: 'warm', runs: 2, keyed_runs: 2 }), 2, 'idle after run 2: run 3');
    // The finished count's save was lost but the next run's key was taken: still past it.
    assert.equal(respawnRuns({ mode: 'warm', runs: 0, keyed_runs: 2 }), 2);
  });
});

describe('nthRun', () => {
  it("counts a warm session's runs on from its payload's run, each with its own journal scope", () => {
    const turn = {
      turn_id: 'sub-1.run3',
      idempotency_prefix: 'agentd/sub/sub-1',
      journal_scope: 'agentd/sub/sub-1#sub-1.run3.',
      subagent: { handle: 'sub-1', warm: true, run: 3 },
    } as TurnSpec;
    assert.deepEqual(nthRun(turn, 2), { turn_id: 'sub-1.run4', journal_scope: 'agentd/sub/sub-1#sub-1.run4.' });
  });
});
