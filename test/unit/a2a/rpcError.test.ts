// The store's retryable refusal on the wire (issue 13 item 8, docs/concepts/durability.md): its own code and
// `data.retryable`, where it used to be -32603 like every internal error and a client could not tell it apart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asRpcError, errorEnvelope, RPC_CODES, RpcError, toSdkError } from '../../../src/a2a/rpcError.js';
import { DaemonError } from '../../../src/errors.js';
import { STORE_UNAVAILABLE } from '../../../src/store/commitHealth.js';

describe('asRpcError for a store that cannot commit', () => {
  const refused = new DaemonError('store_unavailable', STORE_UNAVAILABLE, true);

  it('is -31503 with data {retryable: true}, not the internal -32603', () => {
    const err = asRpcError(refused, () => assert.fail('a store refusal is not an unknown error'));
    assert.equal(err.code, -31503);
    assert.notEqual(err.code, RPC_CODES.internal);
    assert.deepEqual(errorEnvelope(7, err), {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -31503, message: STORE_UNAVAILABLE, data: { retryable: true } },
    });
  });

  it('keeps its code through the SDK transport error, and other errors carry no data', () => {
    const sdk = toSdkError(asRpcError(refused, () => {}));
    assert.equal(sdk.envelopeCode, -31503);
    const plain = errorEnvelope(1, new RpcError(RPC_CODES.invalid_params, 'bad'));
    assert.equal('data' in (plain.error as object), false);
  });
});
