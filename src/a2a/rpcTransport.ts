// The A2A SDK's side of the listener: the agent card's JSON form and JSON-RPC 2.0 through the SDK's transport
// handler over our backend. The listener loads it at the first request that needs it, so an idle daemon holds
// neither the SDK's server nor jose (issue 14); authentication, limits and the audit stay in listener.ts.
import type { ServerResponse } from 'node:http';
import { AgentCard } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aBackend } from './backend.js';
import { PROTOCOL_VERSION } from './card.js';
import { sendJson } from './httpIo.js';
import { BackendRequestHandler, CALL_KEY, type CallState } from './requestHandler.js';
import { httpStatusOf } from './rpcError.js';
import { streamResponses } from './rpcStream.js';

/** One checked JSON-RPC request: its id and body. */
export interface RpcRequest {
  id: string | number | null;
  body: Record<string, unknown>;
}

/** The SDK's transport handler over one backend. */
export class RpcTransport {
  private readonly transport: JsonRpcTransportHandler;

  constructor(backend: A2aBackend, card: () => AgentCard) {
    this.transport = new JsonRpcTransportHandler(new BackendRequestHandler(backend, card));
  }

  /** The card as the wire's JSON. */
  cardJson(card: AgentCard): unknown {
    return AgentCard.toJSON(card);
  }

  /** Runs one request for `call`'s principal and answers it on `res` (one JSON body or a stream); the outcome. */
  async answer(res: ServerResponse, request: RpcRequest, call: CallState): Promise<string | number> {
    const context = new ServerCallContext({
      user: { isAuthenticated: true, userName: call.principal.id },
      requestedVersion: PROTOCOL_VERSION,
      state: new Map([[CALL_KEY, call]]),
    });
    const out = await this.transport.handle(request.body, context);
    if (Symbol.asyncIterator in out) return streamResponses(res, out, request.id, call.signal);
    const error = (out as { error?: { code?: number } }).error;
    if (request.body['method'] === 'ListTasks') omitEmptyPageToken(out);
    sendJson(res, httpStatusOf(error?.code ?? 0), out);
    return error?.code ?? 'ok';
  }
}

/** The last page has no `nextPageToken` at all (the SDK writes ""; reference A.3.7 AC-A2A-SHAPE). */
function omitEmptyPageToken(out: unknown): void {
  const result = (out as { result?: { nextPageToken?: string } }).result;
  if (result?.nextPageToken === '') delete result.nextPageToken;
}
