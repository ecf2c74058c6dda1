// The mcp.tool step inside real runs (producers reference §2.8 `mcp.tool`, case P-9): a real MCP server over
// Streamable HTTP records every tools/call with its `_meta`; the run's key and attempt are what it saw.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpConnection } from '../../../src/tools/mcp/mcpConnection.js';
import type { McpCaller } from '../../../src/workflows/nodeKind.js';
import { idempotencyKey } from '../../../src/workflows/stepExecution.js';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import { named, openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
let n = 0;
let server: McpTestServer;
let conn: McpConnection;
let caller: McpCaller;

before(async () => {
  server = await startMcpTestServer();
  conn = await McpConnection.connect({ name: 'tools', transport: 'http', url: server.url, headers: {} });
  caller = async (name, tool, args, call) =>
    name === 'tools'
      ? conn.callTool(tool, args, call)
      : { result: `tool transport error: no server ${name}`, is_error: true };
});
after(async () => {
  await conn.close();
  await server.close();
  tmp.remove();
});

const flow = (step: Record<string, unknown>) => ({
  name: 'w',
  steps: {
    s: { kind: 'once' },
    call: { kind: 'mcp.tool', depends_on: 's', server: 'tools', ...step },
    f: { kind: 'finish', depends_on: 'call', output: 'CEL: steps.call.output' },
  },
});

async function runOnce(doc: unknown) {
  const life = await openDesk(`${tmp.dir}/life-${++n}`, [doc], { mcp: caller });
  const [run] = await life.desk.fireOnce();
  assert.ok(run);
  const done = await settled(life, run.id, 15_000);
  await life.close();
  return { done, events: life.events };
}

describe('mcp.tool step', () => {
  it('calls the tool with rendered args; the output is its value; _meta carries key, attempt, instance, run', async () => {
    server.calls.length = 0;
    const { done } = await runOnce(flow({ tool: 'echo', args: { text: '{{run.id}}' } }));
    assert.equal(done.status, 'completed', done.error ?? '');
    assert.deepEqual(done.output, { text: done.id });
    assert.equal(server.calls.length, 1);
    assert.deepEqual(server.calls[0]?.meta, {
      'agent/idempotency_key': idempotencyKey(done.id, 'call'),
      'agent/attempt': 1,
      'agent/instance': 'agentd',
      'agent/run': done.id,
    });
  });

  it('P-9: an isError tool retried twice is called three times with one key and attempts 1, 2, 3', async () => {
    server.calls.length = 0;
    const { done, events } = await runOnce(flow({ tool: 'failing', retry: { max: 2, backoff: '50ms' } }));
    assert.equal(done.status, 'failed');
    assert.match(done.error ?? '', /^step "call" failed: /);
    assert.equal(done.steps['call']?.error, 'the failing tool failed');
    const key = idempotencyKey(done.id, 'call');
    assert.deepEqual(
      server.calls.map((c) => [c.meta?.['agent/idempotency_key'], c.meta?.['agent/attempt']]),
      [
        [key, 1],
        [key, 2],
        [key, 3],
      ],
    );
    assert.equal(named(events, 'step.retry').length, 2);
  });

  it('pins the key with idempotency.value, and an unknown server fails as a transport error', async () => {
    server.calls.length = 0;
    const pinned = await runOnce(flow({ tool: 'echo', args: { text: 'x' }, idempotency: { value: 'k-1' } }));
    assert.equal(server.calls[0]?.meta?.['agent/idempotency_key'], 'k-1');
    assert.equal(pinned.done.status, 'completed');
    const missing = await runOnce({
      ...flow({ tool: 'echo' }),
      steps: { ...flow({}).steps, call: { kind: 'mcp.tool', depends_on: 's', server: 'nope', tool: 'echo' } },
    });
    assert.match(missing.done.steps['call']?.error ?? '', /^transport error: no server nope/);
  });

  it('refuses a malformed idempotency at load', async () => {
    await assert.rejects(
      openDesk(`${tmp.dir}/life-${++n}`, [flow({ tool: 'echo', idempotency: 'yes' })]),
      /mcp\.tool\.idempotency must be true or \{value\}/,
    );
  });
});
