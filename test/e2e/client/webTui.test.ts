// A browser and a TUI on one conversation converge (interfaces §5 case 10): a prompt typed in the TUI and its reply
// appear in the browser, and one sent from the browser appears in the TUI, each once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { type ScriptedModel, startScriptedModel } from '../../doubles/scriptedModel.js';
import { waitUntil } from '../../integration/wait.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { AGENTD_BIN, tempStateDir } from '../harness.js';
import { firstPage, launchBrowser } from './browser.js';
import { hasTmux, terminal as tmuxTerminal } from './tmuxTerminal.js';

const ALICE_TOKEN = 'alice-webtui-token-0123456789';
const WAIT = { timeout: 20_000 };
const count = (screen: string, text: string) => screen.split(text).length - 1;

describe('a browser and a TUI on one conversation', {
  skip: !hasTmux && 'tmux is not installed',
  timeout: 180_000,
}, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let browser: BrowserContext;
  let page: Page;
  before(async () => {
    model = await startScriptedModel({
      turns: [{ content: 'all done' }],
      match: [
        { when_contains: 'words from the browser', times: 1, content: 'browser answered' },
        { when_contains: 'words from the terminal', times: 1, content: 'terminal answered' },
      ],
    });
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      '  principals:',
      '    - {id: alice, role: user, match: {bearer: "{{secret:ALICE_TOKEN}}"}}',
      'agent:',
      '  preflight: never',
      'intelligence:',
      `  endpoints: ${model.url}`,
      '',
    ].join('\n');
    daemon = await startDaemon(tempStateDir(), yaml, { ALICE_TOKEN });
    browser = await launchBrowser();
    page = await firstPage(browser, []);
  });
  after(async () => {
    await browser?.close();
    await daemon?.stop();
    await model?.close();
  });

  it('shows each side what the other sent, and the replies, once', async () => {
    await page.goto(`${daemon.url}/ui/c/shared`);
    await page.getByLabel('Access token').fill(ALICE_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('● live').waitFor(WAIT);
    const env = `AGENTD_URL=${daemon.url} AGENTD_TOKEN=${ALICE_TOKEN}`;
    const tui = tmuxTerminal(
      'agentd-webtui',
      `${env} ${process.execPath} ${AGENTD_BIN} tui --conversation shared; sleep 5`,
    );
    try {
      await waitUntil(() => tui.screen().includes('● live'), 15_000, 'the TUI connects');
      tui.type('words from the terminal');
      const transcript = page.getByRole('list', { name: 'Transcript' });
      await transcript.locator('.row.user', { hasText: 'words from the terminal' }).waitFor(WAIT);
      await transcript.locator('.row.agent', { hasText: 'terminal answered' }).waitFor(WAIT);
      await page.getByLabel('Message').fill('words from the browser');
      await page.getByLabel('Message').press('Enter');
      await waitUntil(() => tui.screen().includes('browser answered'), 20_000, 'the TUI shows the browser reply');
      const screen = tui.screen();
      for (const text of [
        'words from the terminal',
        'terminal answered',
        'words from the browser',
        'browser answered',
      ]) {
        assert.equal(count(screen, text), 1, `the TUI shows "${text}" once`);
        assert.equal(
          await transcript.locator('.row', { hasText: text }).count(),
          1,
          `the browser shows "${text}" once`,
        );
      }
    } finally {
      tui.close();
    }
  });
});
