// actsForAll, ownershipRefusal and deliveryRefusal: the one rule of who reaches which conversation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actsForAll, deliveryRefusal, ownershipRefusal } from '../../../src/domain/principal.js';

describe('actsForAll', () => {
  it('is true for the operator and for work acting for nobody only', () => {
    assert.deepEqual([null, 'operator', 'user:alice', 'agent:ci'].map(actsForAll), [true, true, false, false]);
  });
});

describe('ownershipRefusal', () => {
  it('lets the owner, the operator and nobody in; refuses another principal', () => {
    assert.equal(ownershipRefusal('user:a', 'user:a'), null);
    assert.equal(ownershipRefusal('user:a', 'operator'), null);
    assert.equal(ownershipRefusal('user:a', null), null);
    assert.equal(ownershipRefusal(null, 'user:b'), null);
    assert.equal(ownershipRefusal('user:a', 'user:b'), 'the conversation belongs to another principal');
  });
});

describe('deliveryRefusal', () => {
  it("lets a user name a new conversation, but not one in another principal's namespace", () => {
    assert.equal(deliveryRefusal('later', undefined, 'user:a'), null);
    assert.equal(deliveryRefusal('user:a/later', undefined, 'user:a'), null);
    assert.equal(deliveryRefusal('user:b/later', undefined, 'user:a'), "the name is in another principal's namespace");
    assert.equal(deliveryRefusal('user:b/later', 'user:b', 'user:a'), 'the conversation belongs to another principal');
    assert.equal(deliveryRefusal('later', undefined, 'operator'), null);
    assert.equal(deliveryRefusal('new', undefined, 'user:a'), null);
    assert.equal(deliveryRefusal('root', undefined, 'user:a'), null);
    assert.equal(deliveryRefusal('mine', 'user:a', 'user:a'), null);
    assert.match(deliveryRefusal('theirs', 'user:b', 'user:a') ?? '', /another principal/);
  });
});
