// Summary and plan renderings (reference §8.3): exact formats.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isPlanComplete,
  isSummaryEmpty,
  planProgress,
  renderPlan,
  renderSummary,
} from '../../../src/context/render.js';
import { item, plan, summary } from './fixtures.js';

describe('renderSummary', () => {
  it('renders every non-empty section then the narrative', () => {
    const text = renderSummary(
      summary({ goals: ['ship'], decisions: ['use ts'], open: ['tests'], facts: ['a=1', 'b=2'], narrative: 'So far.' }),
    );
    assert.equal(
      text,
      [
        'Summary of earlier conversation:',
        'Goals:',
        '- ship',
        'Decisions:',
        '- use ts',
        'Open items:',
        '- tests',
        'Facts:',
        '- a=1',
        '- b=2',
        'So far.',
      ].join('\n'),
    );
  });

  it('omits empty sections', () => {
    assert.equal(renderSummary(summary({ facts: ['x'] })), 'Summary of earlier conversation:\nFacts:\n- x');
  });

  it('is empty for an empty or missing summary', () => {
    assert.equal(renderSummary(summary()), '');
    assert.equal(renderSummary(summary({ narrative: '  ' })), '');
    assert.equal(renderSummary(null), '');
  });
});

describe('isSummaryEmpty', () => {
  it('is false once a list entry or a narrative exists', () => {
    assert.equal(isSummaryEmpty(summary()), true);
    assert.equal(isSummaryEmpty(summary({ open: ['x'] })), false);
    assert.equal(isSummaryEmpty(summary({ narrative: 'n' })), false);
  });
});

describe('renderPlan', () => {
  it('renders the header and one marked line per item with detail and note', () => {
    const p = plan('ship it', [
      item(1, 'write', 'done', { detail: 'the code' }),
      item(2, 'test', 'in_progress', { note: 'half' }),
      item(3, 'review', 'pending', { detail: 'd', note: 'n' }),
      item(4, 'deploy', 'blocked'),
      item(5, 'party', 'skipped'),
    ]);
    assert.equal(
      renderPlan(p),
      [
        'Plan (1/5 done): ship it',
        '[x] 1. write — the code',
        '[~] 2. test (half)',
        '[ ] 3. review — d (n)',
        '[!] 4. deploy',
        '[-] 5. party',
      ].join('\n'),
    );
  });

  it('renders a plan with no items as the header alone', () => {
    assert.equal(renderPlan(plan('g', [])), 'Plan (0/0 done): g');
  });
});

describe('planProgress', () => {
  it('counts only done items', () => {
    assert.equal(planProgress(plan('g', [item(1, 'a', 'done'), item(2, 'b', 'skipped'), item(3, 'c')])), '1/3 done');
  });
});

describe('isPlanComplete', () => {
  it('is true when every item is done, blocked or skipped', () => {
    assert.equal(
      isPlanComplete(plan('g', [item(1, 'a', 'done'), item(2, 'b', 'blocked'), item(3, 'c', 'skipped')])),
      true,
    );
  });

  it('is false with a pending or in-progress item', () => {
    assert.equal(isPlanComplete(plan('g', [item(1, 'a', 'done'), item(2, 'b', 'in_progress')])), false);
    assert.equal(isPlanComplete(plan('g', [item(1, 'a')])), false);
  });

  it('is false for an empty or missing plan', () => {
    assert.equal(isPlanComplete(plan('g', [])), false);
    assert.equal(isPlanComplete(null), false);
  });
});
