// A refused answer in the web UI (issue 18; interfaces §5 case 4 in the browser): a question whose schema wants an
// integer is answered with words; the page shows `answer rejected: <why>` and the question stays open, amended;
// a fitting answer then closes it and the turn replies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { ScriptedModel } from '../../doubles/scriptedModel.js';
import { type Daemon, startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';
import { firstPage, launchBrowser } from './browser.js';
import { startClientModel } from './clientScript.js';

const TOKEN = 'ops-question-token-1';
const WAIT = { timeout: 20_000 };

describe('the web UI: a refused answer', { timeout: 120_000 }, () => {
  let model: ScriptedModel;
  let daemon: Daemon;
  let browser: BrowserContext;
  let page: Page;
  before(async () => {
    model = await startClientModel({ type: 'integer' });
    const yaml = [
      'a2a:',
      '  listen: http://127.0.0.1:0',
      `  principals: [{id: ops, role: operator, match: {bearer: ${TOKEN}}}]`,
      'intelligence:',
      `  endpoints: ${model.url}`,
      '',
    ];
    daemon = await startDaemon(tempStateDir(), yaml.join('\n'));
    browser = await launchBrowser();
    page = await firstPage(browser, []);
  });
  after(async () => {
    await browser?.close();
    await daemon?.stop();
    await model?.close();
  });

  it('shows why the answer was refused, keeps the question open, then takes a fitting one', async () => {
    await page.goto(`${daemon.url}/ui`);
    await page.getByLabel('Access token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('● live').waitFor(WAIT);
    await page.getByLabel('Message').fill('ask me please');
    await page.getByLabel('Message').press('Enter');
    await page.getByRole('textbox', { name: 'Ship it?', exact: true }).fill('quite a few');
    await page.getByRole('button', { name: 'Answer', exact: true }).click();
    await page.locator('.row.error', { hasText: 'answer rejected: must be integer' }).waitFor(WAIT);
    const amended = 'Ship it? (previous answer rejected: must be integer)';
    const again = page.getByRole('textbox', { name: amended, exact: true });
    await again.waitFor(WAIT);
    assert.ok(daemon.events.some((e) => e.event === 'a2a.answer.rejected'));
    await again.fill('3');
    await page.getByRole('button', { name: 'Answer', exact: true }).click();
    await page.locator('.row.agent', { hasText: 'all done' }).waitFor(WAIT);
    assert.equal(await page.getByRole('button', { name: 'Answer', exact: true }).count(), 0, 'no question is open');
  });
});
