// Start shedding under pressure (producers reference §3.2 step 1): shed on `shed`, and on `warn` for low priority.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shedCause } from '../../../src/triggers/shedPolicy.js';

describe('shedCause', () => {
  it('sheds every firing while the gate sheds, naming the cause', () => {
    assert.equal(shedCause({ level: 'shed', cause: 'disk' }, 'high'), 'disk');
    assert.equal(shedCause({ level: 'shed', cause: null }, 'normal'), 'pressure');
  });
  it('on warn sheds only a low priority workflow; ok sheds nothing', () => {
    assert.equal(shedCause({ level: 'warn', cause: 'memory' }, 'low'), 'memory');
    assert.equal(shedCause({ level: 'warn', cause: 'memory' }, 'normal'), null);
    assert.equal(shedCause({ level: 'ok', cause: null }, 'low'), null);
  });
});
