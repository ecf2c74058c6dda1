// The prompt template language (reference §8.1).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedTemplate, compileTemplate, renderTemplate, TemplateError } from '../../../src/context/template.js';

const render = (source: string, data: unknown): string => renderTemplate(compileTemplate(source), data);

describe('renderTemplate', () => {
  it('substitutes paths; a missing path renders as nothing', () => {
    assert.equal(
      render('Hi {{name}} of {{org.name}}{{nope.x}}!', { name: 'bob', org: { name: 'acme' } }),
      'Hi bob of acme!',
    );
  });

  it('renders #if bodies for truthy values only', () => {
    const t = '{{#if a}}A{{/if}}{{#if b}}B{{/if}}{{#if c}}C{{/if}}{{#if d}}D{{/if}}';
    assert.equal(render(t, { a: 'x', b: '', c: [], d: [1] }), 'AD');
  });

  it('repeats #each bodies with this', () => {
    const t = '{{#each items}}- {{this.name}}: {{this.note}}\n{{/each}}';
    assert.equal(render(t, { items: [{ name: 'a', note: 1 }, { name: 'b' }] }), '- a: 1\n- b: \n');
  });

  it('nests blocks', () => {
    const t = '{{#if show}}{{#each xs}}[{{this}}]{{/each}}{{/if}}';
    assert.equal(render(t, { show: true, xs: ['1', '2'] }), '[1][2]');
  });

  it('fails to render #each over something that is not a list', () => {
    assert.throws(() => render('{{#each name}}x{{/each}}', { name: 'bob' }), TemplateError);
  });
});

describe('compileTemplate', () => {
  it('refuses unclosed, stray and malformed tags', () => {
    assert.throws(() => compileTemplate('{{#if a}}x'), /never closed/);
    assert.throws(() => compileTemplate('x{{/if}}'), /closes nothing/);
    assert.throws(() => compileTemplate('{{#if a}}x{{/each}}'), /closes nothing/);
    assert.throws(() => compileTemplate('{{#while a}}x{{/while}}'), TemplateError);
    assert.throws(() => compileTemplate('a {{ b c d }}'), /malformed/);
    assert.throws(() => compileTemplate('a {{b'), /unfinished/);
  });

  it('caches by source text', () => {
    assert.equal(cachedTemplate('{{x}}'), cachedTemplate('{{x}}'));
  });
});
