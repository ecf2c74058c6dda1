// Templates (reference §1.3): params checked at call time, refusals that name the field, freeform off.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubagentsConfig } from '../../../src/config/types.js';
import { resolveTemplate, templatesSection } from '../../../src/subagents/templates.js';

const CFG: Pick<SubagentsConfig, 'allow_freeform' | 'templates'> = {
  allow_freeform: true,
  templates: {
    review: {
      instruction: 'Review {{path}} at depth {{depth}}.',
      params: {
        path: { type: 'string', required: true },
        depth: { type: 'integer', enum: [1, 2], default: 1 },
      },
      tools: ['fs.read*'],
      mode: 'async',
    },
  },
};

const error = (r: ReturnType<typeof resolveTemplate>): string => (r.ok ? 'ok' : r.error);

describe('resolveTemplate', () => {
  it('fills the instruction and takes the template grants, defaults included', () => {
    const r = resolveTemplate({ template: 'review', params: { path: 'a.ts' } }, CFG);
    assert.ok(r.ok);
    assert.equal(r.args.instruction, 'Review a.ts at depth 1.');
    assert.deepEqual(r.args.tools, ['fs.read*']);
    assert.equal(r.args.mode, 'async');
  });

  it('refuses naming the field', () => {
    assert.equal(
      error(resolveTemplate({ template: 'review', params: {} }, CFG)),
      'subagent.run: params.path: required',
    );
    assert.equal(
      error(resolveTemplate({ template: 'review', params: { path: 3 } }, CFG)),
      'subagent.run: params.path: expected string',
    );
    assert.equal(
      error(resolveTemplate({ template: 'review', params: { path: 'x', depth: 3 } }, CFG)),
      'subagent.run: params.depth: must be one of 1, 2',
    );
    assert.equal(
      error(resolveTemplate({ template: 'review', params: { path: 'x', color: 'red' } }, CFG)),
      'subagent.run: params.color: not a parameter of this template',
    );
    assert.match(error(resolveTemplate({ template: 'nope' }, CFG)), /^subagent\.run: template: no template "nope"/);
  });

  it('makes templates the only way when allow_freeform is false', () => {
    const off = { ...CFG, allow_freeform: false };
    assert.equal(
      error(resolveTemplate({ instruction: 'anything' }, off)),
      'subagent.run refused: subagents.allow_freeform is false; name a template',
    );
    assert.ok(resolveTemplate({ template: 'review', params: { path: 'x' } }, off).ok);
  });

  it('lists templates in the prompt section', () => {
    assert.equal(
      templatesSection(CFG),
      '## Subagent templates (spawn with subagent.run {template, params})\n- review(path: string, depth: integer?)',
    );
    assert.equal(templatesSection({ allow_freeform: true, templates: {} }), '');
  });
});
