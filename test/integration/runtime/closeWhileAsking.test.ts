// An embedded agent closed while a turn waits on ask_human: close() resolves, no question timer keeps the
// process alive afterwards, and nothing rejects unhandled later (a real child process, a real store).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '../../doubles/scriptedModel.js';

const CHILD = fileURLToPath(new URL('./closeWhileAsking.child.js', import.meta.url));

describe('createAgent close() while a person is being asked', () => {
  // 1h: a question timer would hold the loop; 3s: it would fire after close() and read the closed store.
  for (const timeout of ['1h', '3s']) {
    it(`(ask timeout ${timeout}) resolves; the program exits on its own, with no unhandled rejection`, async () => {
      await closeWhileAsking(timeout);
    });
  }
});

async function closeWhileAsking(timeout: string): Promise<void> {
  const model = await startScriptedModel({
    turns: [
      { tool_calls: [{ name: 'ask_human', arguments: { question: 'Which colour?', timeout } }] },
      { content: 'went on without an answer' },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'agentd-ask-close-'));
  const child = spawn(process.execPath, [CHILD, model.url, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += String(d)));
  child.stderr.on('data', (d) => (stderr += String(d)));
  let closedAt = 0;
  child.stdout.on('data', () => {
    if (closedAt === 0 && stdout.includes('closed')) closedAt = Date.now();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    assert.match(stdout, /asking/, `premise: the turn asked a person; stderr: ${stderr}`);
    assert.match(stdout, /closed/, `close() resolved; stderr: ${stderr}`);
    assert.equal(signal, null, 'the program exited on its own (it was not killed)');
    assert.equal(code, 0, `exit code; stderr: ${stderr}`);
    assert.ok(Date.now() - closedAt < 10_000, 'no timer held the event loop after close()');
    assert.doesNotMatch(stderr, /Unhandled|unhandled/);
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
    await model.close();
  }
}
