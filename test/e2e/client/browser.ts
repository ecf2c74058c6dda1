// A real headless Chromium for the web UI's tests (issue 18 item 4): Debian's `chromium`, driven by playwright-core
// (which downloads nothing). Missing? As root the set-up installs it with apt-get; otherwise it fails saying how.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Makes sure /usr/bin/chromium exists: installs Debian's package when running as root, else throws how to. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${CHROMIUM} is missing: the web UI tests need Debian's chromium (run: sudo apt-get install -y chromium)`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env, timeout: 300_000 });
  // The lock timeout: another apt run (or a test file started apart from scripts/run-tests.mjs) waits, not fails.
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', 'chromium'], {
    stdio: 'ignore',
    env,
    timeout: 600_000,
  });
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get install chromium left no ${CHROMIUM}`);
}

/**
 * A headless browser with a fresh profile (its own --user-data-dir); close it to end the process. `extraArgs`: more
 * Chromium switches (e.g. `--host-resolver-rules` to give a test page a name of its own).
 */
export function launchBrowser(extraArgs: readonly string[] = []): Promise<BrowserContext> {
  ensureChromium();
  const profile = mkdtempSync(join(tmpdir(), 'agentd-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...ARGS, ...extraArgs],
    viewport: { width: 1100, height: 720 },
    timeout: 60_000,
  });
}

/** The browser's first tab, with a 20 s default timeout; every URL it requests is pushed to `requested`. */
export async function firstPage(browser: BrowserContext, requested: string[]): Promise<Page> {
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(20_000);
  page.on('request', (r) => requested.push(r.url()));
  return page;
}
