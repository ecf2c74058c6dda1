// What the subagent integration tests share: how the scripted model tells a subagent's request apart, and how
// a conversation's tool results and notes read, and the MCP servers a suite starts.
import { after, before } from 'node:test';
import type { Msg } from '../../../src/protocol/messages.js';
import { type McpTestServer, startMcpTestServer } from '../../doubles/mcpTestServer.js';
import type { Rig } from '../harness.js';

/** Every subagent's request carries its persona; a conversation turn's never does. */
export const SUB = 'You are a subagent of';

/** The tool messages of a conversation, in order. */
export function toolResults(rig: Rig, ctx: string): Array<Extract<Msg, { role: 'tool' }>> {
  return (rig.sup.conversation(ctx)?.messages ?? []).flatMap((m) => (m.role === 'tool' ? [m] : []));
}

/** Two real MCP test servers, `a` and `b`, started before the suite's tests and closed after them. */
export function twoMcpServers(): { a: McpTestServer; b: McpTestServer } {
  const servers = {} as { a: McpTestServer; b: McpTestServer };
  before(async () => {
    servers.a = await startMcpTestServer();
    servers.b = await startMcpTestServer();
  });
  after(async () => {
    await servers.a.close();
    await servers.b.close();
  });
  return servers;
}

/** Notes other than the daily date note. */
export function notes(messages: readonly Msg[] | undefined): string[] {
  return (messages ?? []).flatMap((m) => (m.role === 'note' && !m.text.startsWith('current date:') ? [m.text] : []));
}
