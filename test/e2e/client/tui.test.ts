// The terminal UI in a real terminal (issue 18 item 3, interfaces §5 cases 2, 4, 5, 6): tmux send-keys and
// capture-pane against the scripted model. A prompt shows thinking, then the tool, then the reply; ask_human is
// answered by picking an option; /cancel stops a long tool call (canceled shows once its processes are gone); a
// daemon restart under an attached TUI reconnects with no duplicated row. Skipped where tmux is missing.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, runAgentd, tempStateDir } from '../harness.js';
import { moment, spawnCount, turnInCall } from './cancelProbe.js';
import { MCP_SERVERS, startClientModel } from './clientScript.js';
import { freePort, hasTmux, terminal } from './tmuxTerminal.js';

const SCREENSHOT = fileURLToPath(new URL('../../../../docs/tui-screenshot.txt', import.meta.url));
describe('agentd tui in a real terminal', { skip: !hasTmux && 'tmux is not installed', timeout: 180_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let dir: string;
  let yaml: string;
  before(async () => {
    model = await startClientModel({ enum: ['ship', 'hold'] });
    dir = tempStateDir();
    const port = await freePort();
    const mcp = MCP_SERVERS.join('\n');
    yaml = `a2a:\n  listen: http://127.0.0.1:${port}\nintelligence:\n  endpoints: ${model.url}\n${mcp}\n`;
    daemon = await startDaemon(dir, yaml);
  });
  after(async () => {
    await daemon.stop();
    await model.close();
  });

  // CI=true as on a CI machine: Ink would draw nothing until exit there, unless `agentd tui` hides it (clientCommands).
  const attach = (name: string, flags = '') =>
    terminal(name, `CI=true AGENTD_URL=${daemon.url} ${process.execPath} ${AGENTD_BIN} tui ${flags}; sleep 5`);

  it('shows thinking, then the tool, then the reply; an ask is answered by picking an option', async () => {
    const tui = attach('agentd-tui-chat');
    try {
      await waitUntil(() => tui.screen().includes('● live'), 15_000, 'the TUI connects');
      tui.type('quick tool please');
      await waitUntil(() => /⠿ thinking/.test(tui.screen()), 10_000, 'the working row shows thinking');
      await waitUntil(() => /⠿ trigger-long-running-operation/.test(tui.screen()), 20_000, 'then the tool name');
      await waitUntil(() => tui.screen().includes('● all done'), 20_000, 'then the reply');
      // The screenshot in docs/guide/interfaces.md: `AGENTD_UPDATE_SCREENSHOTS=1` writes this capture to docs/tui-screenshot.txt.
      if (process.env.AGENTD_UPDATE_SCREENSHOTS === '1') writeFileSync(SCREENSHOT, tui.screen().trimEnd() + '\n');
      tui.type('ask me please');
      await waitUntil(() => tui.screen().includes('1 ship   2 hold'), 20_000, 'the choices are shown');
      tui.type('2');
      await waitUntil(() => tui.screen().includes('▌ hold'), 10_000, 'the answer is sent as the option');
      await waitUntil(() => tui.screen().split('● all done').length === 3, 20_000, 'the turn goes on and replies');
      assert.match(JSON.stringify(model.requests.at(-1)?.body), /hold/, 'the model got the picked option');
    } finally {
      tui.close();
    }
  });

  it('/cancel stops a long tool call: canceled shows only once its worker and MCP server are gone', async () => {
    const tui = attach('agentd-tui-cancel');
    try {
      await waitUntil(() => tui.screen().includes('● live'), 15_000, 'the TUI connects');
      const before = spawnCount(daemon);
      tui.type('long tool please');
      const procs = await turnInCall(daemon, before, 'hold_on', 'lingeringMcpServer');
      await waitUntil(() => /⠿ hold_on/.test(tui.screen()), 30_000, 'the long call shows');
      const start = moment('mid-call', procs);
      assert.ok(start.workerAlive && start.mcpAlive, 'premise: the worker and its MCP server run mid-call');
      tui.type('/cancel');
      await waitUntil(() => tui.screen().includes('canceled'), 15_000, 'the task shows canceled');
      // The MCP server is slow to stop: before, the screen showed canceled while both still ran (about 1.3 s).
      const shown = moment('TUI screen', procs);
      assert.equal(shown.workerAlive, false, 'the worker was gone when canceled showed');
      assert.equal(shown.mcpAlive, false, 'the MCP server was gone when canceled showed');
    } finally {
      tui.close();
    }
  });

  it('reconnects across a daemon restart with no duplicated row', async () => {
    const tui = attach('agentd-tui-restart');
    try {
      await waitUntil(() => tui.screen().includes('● live'), 15_000, 'the TUI connects');
      tui.type('before the restart');
      await waitUntil(() => tui.screen().includes('▌ before the restart'), 10_000, 'the prompt shows');
      await new Promise((r) => setTimeout(r, 1_500));
      const replies = (tui.screen().match(/● all done/g) ?? []).length;
      assert.equal(await daemon.stop(), 0);
      await waitUntil(() => tui.screen().includes('✗'), 10_000, 'the TUI shows it lost the daemon');
      daemon = await startDaemon(dir, yaml);
      await waitUntil(() => tui.screen().includes('● live'), 15_000, 'the TUI reconnects');
      tui.type('after the restart');
      await waitUntil(() => tui.screen().includes('▌ after the restart'), 10_000, 'a new prompt works');
      await waitUntil(() => (tui.screen().match(/● all done/g) ?? []).length === replies + 1, 20_000, 'its reply');
      const screen = tui.screen();
      assert.equal(screen.split('▌ before the restart').length, 2, `one row for the old prompt:\n${screen}`);
      assert.equal(screen.split('▌ after the restart').length, 2, `one row for the new prompt:\n${screen}`);
    } finally {
      tui.close();
    }
  });

  it('opens the latest conversation with its stored messages; new opens none; send --conversation latest continues it', async () => {
    // Its own conversation, sent before any view attaches: the test needs no earlier test's rows.
    const seeded = await runAgentd(['send', '--json', 'seed for latest'], { env: { AGENTD_URL: daemon.url } });
    assert.equal(seeded.code, 0, seeded.stderr);
    const ctx = (JSON.parse(seeded.stdout) as { contextId: string }).contextId;
    const fresh = attach('agentd-tui-new', '--conversation new');
    const latest = attach('agentd-tui-latest');
    try {
      await waitUntil(() => latest.screen().includes('▌ seed for latest'), 15_000, 'the latest conversation opens');
      assert.ok(latest.screen().includes(`#${ctx}`), `the header names the conversation ${ctx}:\n${latest.screen()}`);
      await waitUntil(() => fresh.screen().includes('● live'), 15_000, 'the new view connects');
      // The feed starts from now: before, every attach replayed the whole retained feed into the view.
      assert.ok(!fresh.screen().includes('seed for latest'), `a new view shows no old row:\n${fresh.screen()}`);
      assert.match(fresh.screen(), /all conversations/);
      const run = await runAgentd(['send', '--json', '--conversation', 'latest', 'continue please'], {
        env: { AGENTD_URL: daemon.url },
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal((JSON.parse(run.stdout) as { contextId: string }).contextId, ctx, 'the same conversation');
      assert.match(JSON.stringify(model.requests.at(-1)?.body), /seed for latest/, 'the model saw its history');
      await waitUntil(() => latest.screen().includes('▌ continue please'), 10_000, 'the open view follows it live');
      assert.equal(
        latest.screen().split('▌ seed for latest').length,
        2,
        `one row for the stored prompt:\n${latest.screen()}`,
      );
    } finally {
      fresh.close();
      latest.close();
    }
  });
  it('shows the goal `agentd goal set` sets in the header, and /conversation lists stored conversations', async () => {
    const env = { AGENTD_URL: daemon.url };
    const seeded = await runAgentd(['send', '--json', 'seed for the goal'], { env });
    assert.equal(seeded.code, 0, seeded.stderr);
    const ctx = (JSON.parse(seeded.stdout) as { contextId: string }).contextId;
    const tui = attach('agentd-tui-goal', `--conversation ${ctx}`);
    try {
      await waitUntil(() => tui.screen().includes('▌ seed for the goal'), 15_000, 'the conversation opens');
      assert.ok(!tui.screen().includes('goal:'), `premise: no goal shown yet:\n${tui.screen()}`);
      const set = await runAgentd(['goal', 'set', '--conversation', ctx, 'ship the report'], { env });
      assert.equal(set.code, 0, set.stderr);
      await waitUntil(() => /goal: ship the report \(/.test(tui.screen()), 15_000, 'the header shows the goal');
      // A conversation this view never saw a row of (started after it attached, elsewhere) is listed all the same.
      const other = await runAgentd(['send', '--json', '--conversation', 'listed-elsewhere', 'hi'], { env });
      assert.equal(other.code, 0, other.stderr);
      tui.type('/conversation');
      const flat = () => tui.screen().replaceAll('\n', ' ');
      await waitUntil(() => /conversations: .*listed-elsewhere/.test(flat()), 10_000, 'the list');
    } finally {
      tui.close();
    }
  });
});
