import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Config } from '../../../src/config/types.js';
import { liveConfig } from '../../../src/runtime/liveConfig.js';

const config = (model: string) => Object.freeze({ intelligence: Object.freeze({ model }) }) as unknown as Config;

describe('liveConfig', () => {
  it('a holder of the view reads the config in force; a section read before the swap stays as it was', () => {
    const live = liveConfig(config('old'));
    const held = live.view;
    const section = held.intelligence;
    live.swap(config('new'));
    assert.equal(held.intelligence.model, 'new');
    assert.equal(section.model, 'old', 'what a turn took at launch does not change under it');
    assert.equal(live.current().intelligence.model, 'new');
  });

  it('spreads and lists keys like the config itself, and refuses writes', () => {
    const live = liveConfig(config('m'));
    assert.deepEqual(Object.keys(live.view), ['intelligence']);
    assert.equal({ ...live.view }.intelligence.model, 'm');
    assert.equal('intelligence' in live.view, true);
    assert.throws(() => {
      (live.view as { intelligence: unknown }).intelligence = null;
    }, TypeError);
  });
});
