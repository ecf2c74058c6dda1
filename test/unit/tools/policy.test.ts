import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PolicyRule } from '../../../src/config/types.js';
import { type CallFacts, couldMatch, denyMessage, judgeCall, matchPattern } from '../../../src/tools/policy.js';
import type { RegisteredTool } from '../../../src/tools/registry.js';

function rule(name: string, action: PolicyRule['action'], match: PolicyRule['match'] = {}): PolicyRule {
  return { name, match, action, on_timeout: 'deny', timeout: 300_000 };
}

function call(facts: Partial<CallFacts> = {}): CallFacts {
  return { tool: 'fs.write', server: 'fs', tags: [], caller: 'root', principal: 'operator', args: {}, ...facts };
}

function mcpTool(name: string, server: string, tags: string[] = []): RegisteredTool {
  return { name, description: '', input_schema: { type: 'object' }, class: 'mcp', server, wire: name, tags };
}

describe('matchPattern', () => {
  it('matches *, exact names and prefixes', () => {
    assert.equal(matchPattern('*', 'anything'), true);
    assert.equal(matchPattern('fs.write', 'fs.write'), true);
    assert.equal(matchPattern('fs.write', 'fs.writes'), false);
    assert.equal(matchPattern('fs.*', 'fs.read'), true);
    assert.equal(matchPattern('fs.*', 'fsx.read'), false);
    assert.equal(matchPattern('user:*', 'user:alice'), true);
  });
});

describe('judgeCall', () => {
  it('allows with no rule when nothing matches', () => {
    assert.deepEqual(judgeCall([], call()), { action: 'allow', rule: null });
    assert.deepEqual(judgeCall([rule('r', 'deny', { tool: 'web.*' })], call()), { action: 'allow', rule: null });
  });

  it('lets the first matching rule decide: an allow before a deny lets a call through', () => {
    const policies = [
      rule('ok-tmp', 'allow', { args: { path: '/tmp/x' } }),
      rule('no-writes', 'deny', { tool: 'fs.*' }),
    ];
    assert.deepEqual(judgeCall(policies, call({ args: { path: '/tmp/x' } })), { action: 'allow', rule: 'ok-tmp' });
    assert.deepEqual(judgeCall(policies, call({ args: { path: '/etc' } })), { action: 'deny', rule: 'no-writes' });
  });

  it('returns ask with its timeout and fallback', () => {
    const ask: PolicyRule = { ...rule('confirm', 'ask'), on_timeout: 'allow', timeout: 30_000 };
    assert.deepEqual(judgeCall([ask], call()), {
      action: 'ask',
      rule: 'confirm',
      on_timeout: 'allow',
      timeout: 30_000,
    });
  });

  it('ANDs the conditions: server, tags, caller, principal', () => {
    const deny = rule('r', 'deny', {
      server: 'fs',
      tags: ['sensitive'],
      caller: ['conversation'],
      principal: 'user:*',
    });
    const hit = call({ tags: ['sensitive', 'egress'], caller: 'conversation', principal: 'user:bob' });
    assert.equal(judgeCall([deny], hit).action, 'deny');
    assert.equal(judgeCall([deny], { ...hit, server: 'web' }).action, 'allow');
    assert.equal(judgeCall([deny], { ...hit, tags: ['egress'] }).action, 'allow');
    assert.equal(judgeCall([deny], { ...hit, caller: 'root' }).action, 'allow');
    assert.equal(judgeCall([deny], { ...hit, principal: 'operator' }).action, 'allow');
    assert.equal(judgeCall([deny], { ...hit, principal: null }).action, 'allow');
    const { server: _server, ...internal } = hit;
    assert.equal(judgeCall([deny], internal).action, 'allow', 'a server condition never holds for a serverless call');
  });

  it('matches args by dotted path and deep equality', () => {
    const deny = rule('r', 'deny', { args: { 'opts.mode': 'force', 'targets.0': { host: 'prod', port: 22 } } });
    const args = { opts: { mode: 'force' }, targets: [{ port: 22, host: 'prod' }] };
    assert.equal(judgeCall([deny], call({ args })).action, 'deny');
    assert.equal(judgeCall([deny], call({ args: { ...args, opts: { mode: 'soft' } } })).action, 'allow');
    assert.equal(judgeCall([deny], call({ args: { ...args, targets: [] } })).action, 'allow');
    assert.equal(judgeCall([deny], call({ args: { targets: args.targets } })).action, 'allow', 'a missing path');
  });

  it('fails closed on an args guard it cannot evaluate: deny and ask apply, allow does not', () => {
    const guard = { args: { 'opts.mode': 'force' } };
    const unreadable = [call({ args: { opts: 'force' } }), call({ args: { _raw: '{not json' } }), call({ args: 'x' })];
    for (const facts of unreadable) {
      assert.deepEqual(judgeCall([rule('d', 'deny', guard)], facts), { action: 'deny', rule: 'd' });
      assert.equal(judgeCall([rule('a', 'ask', guard)], facts).action, 'ask');
      assert.deepEqual(judgeCall([rule('a', 'allow', guard), rule('d', 'deny')], facts), { action: 'deny', rule: 'd' });
    }
    // A failed condition elsewhere in the rule still means the rule does not apply.
    assert.equal(
      judgeCall([rule('d', 'deny', { ...guard, tool: 'web.*' })], unreadable[0] as CallFacts).action,
      'allow',
    );
    const twoPaths = rule('d', 'deny', { args: { 'opts.mode': 'force', other: 1 } });
    assert.equal(judgeCall([twoPaths], call({ args: { opts: 'x', other: 2 } })).action, 'allow');
  });
});

describe('couldMatch', () => {
  const write = mcpTool('fs.write', 'fs', ['sensitive']);

  it('is false with no policies or none that fit the tool, server or tags', () => {
    assert.equal(couldMatch([], write), false);
    assert.equal(couldMatch([rule('r', 'deny', { tool: 'web.*' })], write), false);
    assert.equal(couldMatch([rule('r', 'deny', { server: 'web' })], write), false);
    assert.equal(couldMatch([rule('r', 'deny', { tags: ['sensitive', 'egress'] })], write), false);
  });

  it('is true when tool, server and tags fit, whatever caller, principal and args say', () => {
    assert.equal(couldMatch([rule('r', 'deny')], write), true);
    assert.equal(couldMatch([rule('r', 'allow', { tool: 'fs.*', server: 'fs', tags: ['sensitive'] })], write), true);
    const dynamic = rule('r', 'ask', { caller: ['conversation'], principal: 'user:*', args: { path: '/' } });
    assert.equal(couldMatch([dynamic], write), true);
  });
});

describe('denyMessage', () => {
  it('names the tool and the rule', () => {
    assert.equal(
      denyMessage({ action: 'deny', rule: 'no-writes' }, 'fs.write'),
      'tool "fs.write" denied by policy "no-writes"',
    );
    assert.equal(
      denyMessage({ action: 'ask', rule: 'confirm', on_timeout: 'deny', timeout: 300_000 }, 'fs.write'),
      'tool "fs.write" denied by policy "confirm": no approval within 5m',
    );
  });
});
