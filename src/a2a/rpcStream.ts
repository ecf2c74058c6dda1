// Streams a JSON-RPC method's responses as server-sent events. An error before the first event is answered as a
// plain JSON-RPC error (the client then raises the typed error); one after it is the stream's last event.
import type { ServerResponse } from 'node:http';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { sendJson, startEvents, writeEvent } from './httpIo.js';
import { httpStatusOf } from './rpcError.js';

type RpcId = string | number | null;

/** Writes every response of `stream`; resolves with the request's outcome (`ok`, `closed`, or an error code). */
export async function streamResponses(
  res: ServerResponse,
  stream: AsyncGenerator<unknown, void, undefined>,
  id: RpcId,
  signal: AbortSignal,
): Promise<string | number> {
  let first: IteratorResult<unknown, void>;
  try {
    first = await stream.next();
  } catch (err) {
    const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
    sendJson(res, httpStatusOf(error.code), {
      jsonrpc: '2.0',
      id,
      error: { code: error.code, message: error.message },
    });
    return error.code;
  }
  startEvents(res);
  let outcome: string | number = 'ok';
  try {
    if (!first.done) writeEvent(res, first.value);
    for (let next = await stream.next(); !next.done; next = await stream.next()) writeEvent(res, next.value);
    if (signal.aborted) outcome = 'closed';
  } catch (err) {
    const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
    writeEvent(res, { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } });
    outcome = error.code;
  } finally {
    if (!res.writableEnded) res.end();
  }
  return outcome;
}
