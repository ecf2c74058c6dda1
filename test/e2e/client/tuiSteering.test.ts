// The TUI's steering commands and its scroll-back in a real terminal (issue 18 item 3; interfaces §5 case 7), on
// one daemon and one attached TUI: /plan sends in plan mode (the model reads the plan-mode note) and /execute
// leaves it; /goal sets, reads and clears the conversation's goal (header and daemon agree); /pause holds a sent
// prompt from the model until /resume; Tab expands a tool card's arguments and result; PgUp scrolls back, a new
// reply does not move the view, and PgDn follows again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient, type FeedMessage } from '../../../src/client/daemonClient.js';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, tempStateDir } from '../harness.js';
import { MCP_SERVERS, startClientModel } from './clientScript.js';
import { hasTmux, type Terminal, terminal } from './tmuxTerminal.js';

const PLAN_NOTE = 'Plan mode: investigate with read-only tools only';

describe('agentd tui: steering and scroll-back', {
  skip: !hasTmux && 'tmux is not installed',
  timeout: 240_000,
}, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let term: Terminal;
  let client: DaemonClient;
  /** The feed as a second client reads it: tasks' ends and the messages. */
  const seen: FeedMessage[] = [];
  const stop = new AbortController();
  before(async () => {
    model = await startClientModel({ type: 'boolean' });
    const yaml = ['a2a:', '  listen: http://127.0.0.1:0', 'intelligence:', `  endpoints: ${model.url}`, ...MCP_SERVERS];
    daemon = await startDaemon(tempStateDir(), `${yaml.join('\n')}\n`);
    const tui = `AGENTD_URL=${daemon.url} ${process.execPath} ${AGENTD_BIN} tui --conversation new`;
    term = terminal('agentd-tui-steer', `${tui}; sleep 60`);
    client = new DaemonClient({ url: daemon.url });
    void client.feed({ onEvent: (e) => seen.push(e) }, { since: 0, signal: stop.signal });
  });
  after(async () => {
    stop.abort();
    term?.close();
    await daemon?.stop();
    await model?.close();
  });

  const header = (): string => term.screen().split('\n')[0] ?? '';
  const completed = () => seen.filter((e) => e.kind === 'task' && e.data['state'] === 'completed').length;
  /** Sends `text` and waits for its turn to complete (the daemon's task line) and its reply row. */
  const exchange = async (text: string): Promise<void> => {
    const done = completed();
    term.type(text);
    await waitUntil(() => completed() > done, 30_000, `the turn for "${text}" completes`);
    await term.waitFor((s) => s.includes(`▌ ${text}`), 10_000, `the row of "${text}"`);
  };
  const lastRequest = (): string => JSON.stringify(model.requests.at(-1)?.body ?? {});

  it('/plan and /execute switch the mode the next prompt runs in', async () => {
    await term.waitFor((s) => s.includes('● live'), 15_000, 'the TUI connects');
    await exchange('hello first');
    assert.ok(!lastRequest().includes(PLAN_NOTE), 'premise: not in plan mode');
    term.type('/plan');
    await term.waitFor(() => header().includes('plan mode'), 10_000, 'the header says plan mode');
    await exchange('propose a change');
    assert.ok(lastRequest().includes(PLAN_NOTE), 'the model read the plan-mode note');
  });

  it('/goal sets, reads and clears the goal, in the header and at the daemon', async () => {
    // Still in plan mode: a goal does not drive turns of its own there.
    const ctx = String(seen.find((e) => e.kind === 'task')?.data['context_id'] ?? '');
    const goalAt = async () =>
      ((await client.command('goal.get', {}, ctx)) as { goal: { objective?: string } | null }).goal;
    term.type('/goal ship the report');
    await term.waitFor(() => header().includes('goal: ship the report (active)'), 10_000, 'the header shows the goal');
    assert.equal((await goalAt())?.objective, 'ship the report');
    term.type('/goal');
    await term.waitFor((s) => s.includes('· goal: ship the report (active)'), 10_000, '/goal reads it back');
    term.type('/goal clear');
    await term.waitFor((s) => s.includes('· goal cleared'), 10_000, 'cleared');
    await term.waitFor(() => !header().includes('goal:'), 10_000, 'the header no longer shows it');
    assert.equal(await goalAt(), null);
    term.type('/execute');
    await term.waitFor(() => !header().includes('plan mode'), 10_000, 'the header leaves plan mode');
    await exchange('now do it');
    assert.ok(!lastRequest().includes(PLAN_NOTE), 'execute mode: no plan-mode note');
  });

  it('/pause holds a sent prompt from the model until /resume', async () => {
    term.type('/pause');
    await term.waitFor(() => header().includes('paused'), 10_000, 'the header says paused');
    const asked = model.requests.length;
    const done = completed();
    term.type('while paused');
    await term.waitFor((s) => s.includes('▌ while paused'), 10_000, 'the prompt is accepted');
    const held = (e: FeedMessage) => e.kind === 'message' && e.data['text'] === 'while paused';
    await waitUntil(() => seen.some(held), 10_000, 'the daemon accepted it');
    assert.equal(completed(), done);
    assert.equal(model.requests.length, asked, 'paused: the model is not asked');
    term.type('/resume');
    await term.waitFor(() => !header().includes('paused'), 10_000, 'the header no longer says paused');
    await waitUntil(() => completed() > done, 30_000, 'the held prompt runs after resume');
    assert.equal(model.requests.length, asked + 1);
  });

  it('Tab expands tool cards and collapses them again', async () => {
    await exchange('quick tool please');
    await term.waitFor((s) => s.includes('⚙ trigger-long-running-operation ✓'), 10_000, 'the tool card');
    assert.ok(!term.screen().includes('args: {'), 'collapsed at first');
    term.keys('Tab');
    await term.waitFor((s) => s.includes('args: {"duration":3') && s.includes('result: '), 10_000, 'expanded');
    term.keys('Tab');
    await term.waitFor((s) => !s.includes('args: {'), 10_000, 'collapsed again');
  });

  it('PgUp scrolls back, a new reply does not move the view, PgDn follows again', async () => {
    for (let i = 1; i <= 44; i++) term.type('/goal');
    term.type('/last-filler');
    await term.waitFor(
      (s) => !s.includes('▌ hello first') && s.includes('unknown command /last-filler'),
      20_000,
      'note rows push the first rows off',
    );
    // One key at a time: keys that reach Ink in one read may be taken as one.
    term.keys('PageUp');
    await term.waitFor((s) => s.includes('↑ 10 rows back · PgDn to follow'), 10_000, 'the hint');
    term.keys('PageUp');
    await term.waitFor((s) => s.includes('↑ 20 rows back · PgDn to follow'), 10_000, 'further back');
    assert.ok(term.screen().includes('▌ quick tool please'), `earlier rows show:\n${term.screen()}`);
    const transcript = (): string => term.screen().split('\n').slice(2, 30).join('\n');
    const view = transcript();
    const done = completed();
    // A prompt from another client into the conversation in view: its rows arrive while the person reads back.
    const ctx = String(seen.find((e) => e.kind === 'task')?.data['context_id'] ?? '');
    await client.send('after scrolling', { wait: false, contextId: ctx });
    await waitUntil(() => completed() > done, 30_000, 'the turn completes');
    await term.waitFor((s) => s.includes('↑ 22 rows back'), 10_000, 'still scrolled back, past the two new rows');
    assert.equal(transcript(), view, 'the view held');
    for (const left of ['↑ 12 rows back', '↑ 2 rows back']) {
      term.keys('PageDown');
      await term.waitFor((s) => s.includes(left), 10_000, left);
    }
    term.keys('PageDown');
    await term.waitFor((s) => !s.includes('rows back'), 10_000, 'following again');
    await term.waitFor((s) => s.includes('▌ after scrolling') && s.includes('● all done'), 10_000, 'the new rows');
  });
});
