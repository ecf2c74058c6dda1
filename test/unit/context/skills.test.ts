// Skills in the prompt (reference §8.4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  capBody,
  parseSkillReferences,
  planSkillLoad,
  renderCatalogue,
  renderSkills,
} from '../../../src/context/skills.js';

describe('parseSkillReferences', () => {
  it('finds names after the prefix, strips a trailing dot or slash, dedupes', () => {
    const text = 'Use @skill:deploy. Then @skill:ops/rollback/ and @skill:deploy again, not @skill: alone.';
    assert.deepEqual(parseSkillReferences(text, '@skill:'), ['deploy', 'ops/rollback']);
  });

  it('honours another prefix; an empty prefix finds nothing', () => {
    assert.deepEqual(parseSkillReferences('run #s:x', '#s:'), ['x']);
    assert.deepEqual(parseSkillReferences('@skill:x', ''), []);
  });
});

describe('renderSkills', () => {
  it('renders the catalogue, then the loaded bodies', () => {
    const text = renderSkills(
      [
        { name: 'deploy', description: 'Ship it' },
        { name: 'bare', description: '' },
      ],
      [{ name: 'deploy', body: 'Step 1\n' }],
      '@skill:',
    );
    assert.equal(
      text,
      [
        'Available skills (reference one as @skill:<name> or call skills.load to read its full instructions):',
        '- deploy: Ship it',
        '- bare',
        '',
        'Loaded skills — follow these instructions when relevant:',
        '',
        '### Skill: deploy',
        'Step 1',
      ].join('\n'),
    );
  });

  it('is empty for an empty catalogue', () => {
    assert.equal(renderCatalogue([], '@skill:'), '');
    assert.equal(renderSkills([], [], '@skill:'), '');
  });
});

describe('planSkillLoad', () => {
  it('loads, knows what is loaded, and refuses past max_loaded', () => {
    assert.deepEqual(planSkillLoad([], 'a', 8), { kind: 'load' });
    assert.deepEqual(planSkillLoad(['a'], 'a', 1), { kind: 'already' });
    assert.equal(planSkillLoad(['a'], 'b', 1).kind, 'refused');
  });
});

describe('capBody', () => {
  it('cuts on a character boundary and says so', () => {
    assert.equal(capBody('short', 100), 'short');
    const cut = capBody('ééé', 3);
    assert.ok(cut.startsWith('é\n[… cut at 3 bytes]'));
  });
});
