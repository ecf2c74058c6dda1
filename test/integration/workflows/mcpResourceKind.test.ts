// The mcp.resource step inside real runs (producers reference §2.4 `mcp.resource`): a real MCP server over
// Streamable HTTP, reached through the connection's resources as the daemon does; read, list, prompt, complete.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpConnection } from '../../../src/tools/mcp/mcpConnection.js';
import type { StepPorts } from '../../../src/workflows/nodeKind.js';
import { type McpTestServer, startMcpTestServer, WATCHED_URI } from '../../doubles/mcpTestServer.js';
import { openDesk, settled, tempStoreDir } from './deskRig.js';

const tmp = tempStoreDir();
let n = 0;
let server: McpTestServer;
let conn: McpConnection;
let resources: NonNullable<StepPorts['resources']>;

before(async () => {
  server = await startMcpTestServer();
  conn = await McpConnection.connect({ name: 'kb', transport: 'http', url: server.url, headers: {} });
  resources = async (name) => {
    if (name !== 'kb') throw new Error(`no MCP server "${name}" is configured`);
    return conn.resources;
  };
});
after(async () => {
  await conn.close();
  await server.close();
  tmp.remove();
});

async function runStep(step: Record<string, unknown>) {
  const doc = {
    name: 'r',
    steps: {
      s: { kind: 'once' },
      r: { kind: 'mcp.resource', depends_on: 's', server: 'kb', ...step },
      f: { kind: 'finish', depends_on: 'r', output: 'CEL: steps.r.output' },
    },
  };
  const life = await openDesk(`${tmp.dir}/life-${++n}`, [doc], { ports: { resources } });
  try {
    const [run] = await life.desk.fireOnce();
    assert.ok(run);
    return await settled(life, run.id, 15_000);
  } finally {
    await life.close();
  }
}

describe('wait on: resource', () => {
  it("ends at the resource's next update with {uri, server, content}", async () => {
    const doc = {
      name: 'watch',
      steps: {
        s: { kind: 'once' },
        w: { kind: 'wait', depends_on: 's', on: 'resource', server: 'kb', uri: WATCHED_URI, timeout: '10s' },
        f: { kind: 'finish', depends_on: 'w', output: 'CEL: steps.w.output' },
      },
    };
    const life = await openDesk(`${tmp.dir}/life-${++n}`, [doc], { ports: { resources } });
    try {
      const [run] = await life.desk.fireOnce();
      assert.ok(run);
      // Updated until the run sees one: an update before the subscription lands is (rightly) not a wake-up.
      let ended: Awaited<ReturnType<typeof life.desk.wait>> = null;
      for (let i = 0; i < 40 && ended === null; i++) {
        await server.updateResource(JSON.stringify({ v: 2 }));
        ended = await life.desk.wait(run.id, 250).then((r) => (r && !life.desk.engine.get(r.id) ? r : null));
      }
      assert.ok(ended, 'the run ended');
      assert.equal(ended.status, 'completed', ended.error ?? '');
      assert.deepEqual(ended.output, { uri: WATCHED_URI, server: 'kb', content: { v: 2 } });
    } finally {
      await life.close();
    }
  });
});

describe('mcp.resource step', () => {
  it('op: read answers {server, uri, content}, JSON content parsed', async () => {
    await server.updateResource(JSON.stringify({ level: 3 }));
    const done = await runStep({ op: 'read', uri: WATCHED_URI });
    assert.equal(done.status, 'completed', done.error ?? '');
    assert.deepEqual(done.output, { server: 'kb', uri: WATCHED_URI, content: { level: 3 } });
  });

  it('op: list answers every resource the server lists', async () => {
    const done = await runStep({ op: 'list' });
    assert.equal(done.status, 'completed', done.error ?? '');
    const uris = (done.output as { resources: Array<{ uri: string }> }).resources.map((r) => r.uri).sort();
    assert.deepEqual(uris, ['kb://skills/review', WATCHED_URI].sort());
  });

  it('op: prompt answers the rendered prompt {server, name, description, messages}', async () => {
    const done = await runStep({ op: 'prompt', name: 'deploy' });
    assert.equal(done.status, 'completed', done.error ?? '');
    const out = done.output as { name: string; description: string | null; messages: unknown[] };
    assert.equal(out.name, 'deploy');
    assert.match(JSON.stringify(out.messages), /DEPLOY-SKILL-BODY/);
  });

  it('a server error fails the step with the op and the reason; an unknown server likewise', async () => {
    const missing = await runStep({ op: 'read', uri: 'test://nowhere' });
    assert.equal(missing.status, 'failed');
    assert.match(missing.steps['r']?.error ?? '', /^mcp\.resource: resources\/read failed: /);
    const other = await runStep({ op: 'list', server: 'nope' });
    assert.equal(other.steps['r']?.error, 'mcp.resource: no MCP server "nope" is configured');
  });
});
