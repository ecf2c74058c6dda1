// An attached TUI across three lives of its daemon (interfaces reference §5 case 6, §6.2; issue 18 item 3): after
// each SIGTERM it shows `✗ …`, then `● live` once the daemon is back on the same port; a prompt works in every life;
// after the two further reconnects no transcript row is shown twice; the header is re-read on each connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../../src/runtime/version.js';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, tempStateDir } from '../harness.js';
import { freePort, hasTmux, terminal } from './tmuxTerminal.js';

const count = (screen: string, text: string): number => screen.split(text).length - 1;

describe('agentd tui across daemon restarts', { skip: !hasTmux && 'tmux is not installed', timeout: 180_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon | undefined;
  before(async () => {
    model = await startScriptedModel({ turns: [{ content: 'all done' }] });
  });
  after(async () => {
    if (daemon && daemon.child.exitCode === null) await daemon.stop();
    await model.close();
  });

  it('reconnects after each of two further restarts with no duplicated row', async () => {
    const dir = tempStateDir();
    const port = await freePort();
    const yaml = (card: string) =>
      [
        'a2a:',
        `  listen: http://127.0.0.1:${port}`,
        `  card: {name: ${card}}`,
        'intelligence:',
        `  endpoints: ${model.url}`,
        '',
      ].join('\n');
    daemon = await startDaemon(dir, yaml('Life One'));
    const tui = terminal(
      'agentd-tui-lives',
      `AGENTD_URL=${daemon.url} ${process.execPath} ${AGENTD_BIN} tui; sleep 30`,
    );
    try {
      await tui.waitFor((s) => s.includes('● live'), 15_000, 'the TUI connects');
      const lives = ['Life One', 'Life One', 'Life Three'];
      for (const [i, card] of lives.entries()) {
        if (i > 0) {
          assert.equal(await daemon.stop(), 0, 'the daemon drains');
          await tui.waitFor((s) => s.includes('✗'), 10_000, `life ${i + 1}: the TUI shows it lost the daemon`);
          daemon = await startDaemon(dir, yaml(card));
          await tui.waitFor((s) => s.includes('● live'), 15_000, `life ${i + 1}: the TUI reconnects`);
        }
        await tui.waitFor((s) => s.includes(`${card} ${VERSION}`), 10_000, `life ${i + 1}: the header names it`);
        tui.type(`prompt in life ${i + 1}`);
        await tui.waitFor((s) => count(s, '● all done') === i + 1, 20_000, `life ${i + 1}: its reply`);
      }
      const screen = tui.screen();
      for (let i = 1; i <= 3; i++) {
        assert.equal(count(screen, `▌ prompt in life ${i}`), 1, `one row for the prompt of life ${i}:\n${screen}`);
      }
      assert.equal(count(screen, '● all done'), 3, `one reply row per prompt:\n${screen}`);
    } finally {
      tui.close();
    }
  });
});
