// JSON-RPC wire errors of the A2A listener (reference §17.1 codes): one class with a numeric code, never a
// DaemonError. Backend failures map here; a foreign task is indistinguishable from a missing one.
import { JsonRpcTransportError } from '@a2a-js/sdk/errors';
import { QuotaExceeded } from '../budget/quotas.js';
import { DaemonError } from '../errors.js';
import { BackendError } from './backend.js';

/** The codes the listener answers with (reference §17.1, RFC 0043). */
export const RPC_CODES = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal: -32603,
  task_not_found: -32001,
  task_not_cancelable: -32002,
  push_not_supported: -32003,
  unsupported: -32004,
  content_type: -32005,
  version_not_supported: -32009,
  unauthenticated: -31401,
  forbidden: -31403,
  /** A principal's quota (`a2a.principals[].quotas`) refused the message; nothing of it was stored. */
  quota_exceeded: -31429,
  /** The store cannot commit (disk full, an I/O error); nothing was stored; the same messageId may be sent again. */
  store_unavailable: -31503,
} as const;

export type RpcCode = (typeof RPC_CODES)[keyof typeof RPC_CODES];

/** A JSON-RPC error answered to the caller; `httpStatus` is 200 except for authentication and body size. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: RpcCode,
    message: string,
    readonly httpStatus = 200,
    /** JSON-RPC `error.data`: `{retryable: true}` on an error the caller should send again. */
    readonly data?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** The words every caller gets for a task it cannot see, whether it is missing or someone else's. */
export const TASK_NOT_FOUND = 'task not found';

const BACKEND_CODES: Readonly<Record<BackendError['kind'], RpcCode>> = {
  invalid_params: RPC_CODES.invalid_params,
  not_found: RPC_CODES.task_not_found,
  forbidden: RPC_CODES.forbidden,
  not_cancelable: RPC_CODES.task_not_cancelable,
  unsupported: RPC_CODES.unsupported,
  draining: RPC_CODES.internal,
};

/**
 * A backend failure as the caller sees it. not_found says only "task not found" (a foreign task is not found
 * either); forbidden is an operation the caller's role may not run (reference §17.1: -31403, HTTP 403).
 */
export function rpcErrorFromBackend(err: BackendError): RpcError {
  const code = BACKEND_CODES[err.kind];
  if (err.kind === 'forbidden') return new RpcError(code, err.message, 403);
  return new RpcError(code, err.kind === 'not_found' ? TASK_NOT_FOUND : err.message);
}

/** The HTTP status a JSON-RPC error code is answered with (authentication and role refusals are not 200). */
export function httpStatusOf(code: number): number {
  return code === RPC_CODES.forbidden ? 403 : code === RPC_CODES.unauthenticated ? 401 : 200;
}

/**
 * Any failure inside a request as an RpcError. Unknown errors become a bare "internal error" so their text (a
 * path, another principal's data) never reaches the caller; `onUnknown` sees the original.
 */
export function asRpcError(err: unknown, onUnknown: (err: unknown) => void): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof BackendError) return rpcErrorFromBackend(err);
  if (err instanceof QuotaExceeded) return new RpcError(RPC_CODES.quota_exceeded, err.message);
  // Retryable, and worded for callers (store/commitHealth.ts): the one store failure a caller reads.
  if (err instanceof DaemonError && err.code === 'store_unavailable') {
    return new RpcError(RPC_CODES.store_unavailable, err.message, 200, { retryable: true });
  }
  onUnknown(err);
  return new RpcError(RPC_CODES.internal, 'internal error');
}

/** The SDK's transport handler keeps the code of its own JSON-RPC error class; anything else becomes -32603. */
export function toSdkError(err: RpcError): JsonRpcTransportError {
  return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: wireError(err) });
}

/** A JSON-RPC 2.0 error envelope. */
export function errorEnvelope(id: string | number | null, err: RpcError): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: wireError(err) };
}

function wireError(err: RpcError): { code: number; message: string; data?: Record<string, unknown> } {
  return { code: err.code, message: err.message, ...(err.data ? { data: { ...err.data } } : {}) };
}
