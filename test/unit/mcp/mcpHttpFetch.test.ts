import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeliverMessage } from '../../../src/tools/mcp/mcpHttpFetch.js';
import { fetchAnsweringBrokenStreams } from '../../../src/tools/mcp/mcpHttpFetch.js';

type Delivered = Parameters<DeliverMessage>[0];

/** A response whose SSE body sends `chunks`, then ends or breaks. */
function sseResponse(chunks: string[], end: 'close' | 'break'): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
      else if (end === 'close') controller.close();
      else controller.error(new Error('socket hang up'));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function drain(response: Response): Promise<'ended' | 'broke'> {
  const reader = response.body?.getReader();
  try {
    while (reader && !(await reader.read()).done) {}
    return 'ended';
  } catch {
    return 'broke';
  }
}

const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });
const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow' } };

async function run(init: RequestInit, response: Response): Promise<{ delivered: Delivered[]; outcome: string }> {
  const delivered: Delivered[] = [];
  const wrapped = fetchAnsweringBrokenStreams(
    (m) => delivered.push(m),
    async () => response,
  );
  const outcome = await drain(await wrapped('http://x/mcp', init));
  return { delivered, outcome };
}

describe('fetchAnsweringBrokenStreams', () => {
  it('answers a request whose stream breaks before its response with a connection-closed error', async () => {
    const { delivered, outcome } = await run(post(call), sseResponse([': comment\n\n'], 'break'));
    assert.equal(outcome, 'broke');
    assert.equal(delivered.length, 1);
    assert.equal(delivered[0]?.id, 7);
    assert.equal(delivered[0]?.error.code, -32000);
    assert.match(delivered[0]?.error.message ?? '', /^Connection closed: /);
  });

  it('answers a request whose stream ends without a response', async () => {
    const { delivered, outcome } = await run(post(call), sseResponse([], 'close'));
    assert.equal(outcome, 'ended');
    assert.deepEqual(
      delivered.map((d) => d.id),
      [7],
    );
  });

  it('leaves an answered request alone, even when the answer arrives split across chunks', async () => {
    const answer = 'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n\n';
    const { delivered } = await run(post(call), sseResponse([answer.slice(0, 30), answer.slice(30)], 'break'));
    assert.deepEqual(delivered, []);
  });

  it('leaves a resumable stream (events with ids) to the SDK', async () => {
    const { delivered } = await run(post(call), sseResponse(['id: 1\ndata: \n\n'], 'break'));
    assert.deepEqual(delivered, []);
  });

  it('passes notifications and JSON responses through untouched', async () => {
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} };
    assert.deepEqual((await run(post(note), sseResponse([], 'break'))).delivered, []);
    const json = new Response('{"jsonrpc":"2.0","id":7,"result":{}}', {
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual((await run(post(call), json)).delivered, []);
  });

  it('stays quiet when the request was aborted by the client itself', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const { delivered } = await run({ ...post(call), signal: ctl.signal }, sseResponse([], 'break'));
    assert.deepEqual(delivered, []);
  });
});
