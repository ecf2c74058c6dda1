// The http step's private-address policy (producers reference §2.8 `http`, SSRF-guarded).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPrivateAddress } from '../../../src/workflows/privateAddress.js';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, CGNAT, unspecified and unique-local ranges', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '[::1]',
    ])
      assert.equal(isPrivateAddress(a), true, a);
  });

  it('lets public addresses through, including the neighbours of private ranges', () => {
    for (const a of [
      '8.8.8.8',
      '172.15.0.1',
      '172.32.0.1',
      '192.169.0.1',
      '100.128.0.1',
      '2001:4860::8888',
      '::ffff:8.8.8.8',
    ])
      assert.equal(isPrivateAddress(a), false, a);
  });
});
