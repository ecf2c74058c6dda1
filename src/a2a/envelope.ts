// One JSON-RPC 2.0 request body checked in order: JSON (-32700), envelope (-32600), `A2A-Version` (-32009),
// method (-32601), params (-32602). Text and a header in, a request or an RpcError out.
import { type A2aMethod, isA2aMethod, paramsProblem, STREAMING_METHODS } from './params.js';
import { RPC_CODES, RpcError } from './rpcError.js';
import { exactId } from './rpcId.js';

export type RpcId = string | number | null;

export interface RpcRequest {
  id: RpcId;
  method: A2aMethod;
  /** The raw params object (the SDK decodes it), already checked against the method's shape. */
  body: Record<string, unknown>;
  streaming: boolean;
}

export type Envelope =
  | { ok: true; request: RpcRequest }
  | { ok: false; id: RpcId; error: RpcError /** The method named, when it could be read. */; method?: string };

/** The wire version this listener speaks; the header is required (reference §17.1, RFC 0043). */
const A2A_VERSION = '1.0';
const SHOWN_METHOD_CHARS = 64;
/** Deeper values are refused before anything recursive (the SDK's decoding, JSON.stringify) walks them. */
export const MAX_NESTING = 100;

/**
 * Checks one request body and its `A2A-Version` header (absent ⇒ -32009, as the SDK's own server does). An integer
 * id past 2^53 is carried as its raw digits behind `idMark` (see rpcId.ts).
 */
export function readEnvelope(text: string, version: string | undefined, idMark: string): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse(null, RPC_CODES.parse_error, 'malformed JSON');
  }
  if (Array.isArray(parsed)) return refuse(null, RPC_CODES.invalid_request, 'batch requests are not supported');
  if (typeof parsed !== 'object' || parsed === null) {
    return refuse(null, RPC_CODES.invalid_request, 'expected a JSON-RPC 2.0 request object');
  }
  const body = parsed as Record<string, unknown>;
  const id = body['id'] === undefined ? null : exactId(body['id'], text, idMark);
  if (!isRpcId(id)) return refuse(null, RPC_CODES.invalid_request, 'id: expected a string, an integer or null');
  if (body['id'] !== undefined) body['id'] = id;
  if (body['jsonrpc'] !== '2.0') return refuse(id, RPC_CODES.invalid_request, 'jsonrpc: expected "2.0"');
  const method = body['method'];
  if (typeof method !== 'string' || method === '') {
    return refuse(id, RPC_CODES.invalid_request, 'method: expected a method name');
  }
  if (version?.trim() !== A2A_VERSION) {
    const given = version === undefined ? 'no A2A-Version header' : `A2A-Version ${JSON.stringify(version)}`;
    return { ...refuse(id, RPC_CODES.version_not_supported, `${given}: send A2A-Version: ${A2A_VERSION}`), method };
  }
  if (!isA2aMethod(method)) {
    const shown = method.length > SHOWN_METHOD_CHARS ? `${method.slice(0, SHOWN_METHOD_CHARS)}…` : method;
    return { ...refuse(id, RPC_CODES.method_not_found, `unknown method ${JSON.stringify(shown)}`), method: shown };
  }
  if (nestedDeeper(body['params'], MAX_NESTING)) {
    return { ...refuse(id, RPC_CODES.invalid_params, `params: nested deeper than ${MAX_NESTING} levels`), method };
  }
  if (nestedDeeper(body, MAX_NESTING + 1)) {
    return { ...refuse(id, RPC_CODES.invalid_request, `request nested deeper than ${MAX_NESTING} levels`), method };
  }
  const problem = paramsProblem(method, body['params']);
  if (problem) return { ...refuse(id, RPC_CODES.invalid_params, problem), method };
  return { ok: true, request: { id, method, body, streaming: STREAMING_METHODS.has(method) } };
}

/** True when `value` holds objects or lists more than `max` levels deep; iterative, so depth cannot overflow it. */
export function nestedDeeper(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [item, depth] = top;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

function isRpcId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

type Refusal = Extract<Envelope, { ok: false }>;

function refuse(id: RpcId, code: (typeof RPC_CODES)[keyof typeof RPC_CODES], message: string): Refusal {
  return { ok: false, id, error: new RpcError(code, message) };
}
