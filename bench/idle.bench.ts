// Idle memory of a daemon (issue 14 target: ≤ 100 MB with one spare): the built `agentd` with an A2A listener,
// SQLite store and the default one spare worker, measured once started and again after two turns (with each turn's
// time: the first runs on the spare, the second on it reused). Prints RSS, PSS and USS summed over the process tree
// and per process (bench/processTree.ts says what each counts). Prints figures; asserts nothing.
import { startScriptedModel } from '../test/doubles/scriptedModel.js';
import { send, startDaemon } from '../test/e2e/daemon.js';
import { tempStateDir } from '../test/e2e/harness.js';
import { clientFor } from '../test/integration/a2a/listenerHarness.js';
import { waitUntil, within } from '../test/integration/wait.js';
import { distinctBytesOfTree, memoryOfTree, treeOf } from './processTree.js';

/** How long the tree is left alone before a sample (the spare's start, the collector's idle work). */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 12_000);

const mb = (bytes: number): string => (bytes / 1_048_576).toFixed(1).padStart(7);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function report(label: string, root: number): void {
  const m = memoryOfTree(root);
  const distinct = distinctBytesOfTree(root);
  const once = distinct === null ? '    n/a' : mb(distinct);
  console.log(`| ${label.padEnd(34)} |${mb(m.rssBytes)} |${mb(m.pssBytes)} |${mb(m.ussBytes)} |${once} |`);
  for (const [i, p] of m.each.entries()) {
    const who = i === 0 ? 'daemon' : `worker ${p.pid}`;
    console.log(`|   ${who.padEnd(32)} |${mb(p.rssBytes)} |${mb(p.pssBytes)} |${mb(p.ussBytes)} |        |`);
  }
}

const model = await startScriptedModel({ turns: [{ content: 'ok' }, { content: 'ok' }] });
const yaml = `a2a:\n  listen: http://127.0.0.1:0\nintelligence:\n  endpoints: ${model.url}\n`;
// NODE_OPTIONS reaches the daemon (and its workers) as an operator would set it, e.g. to compare heap flags.
const nodeOptions: Record<string, string> = process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {};
const daemon = await startDaemon(tempStateDir(), yaml, { AGENTD_OBSERVABILITY_LOG_LEVEL: 'info', ...nodeOptions });
const pid = daemon.child.pid as number;
try {
  console.log(`idle daemon (built agentd, sqlite store, one spare), ${SETTLE_MS} ms after each step`);
  console.log(
    `| ${'state'.padEnd(34)} | RSS MB | PSS MB | USS MB | once MB |\n|${'-'.repeat(36)}|-------:|-------:|-------:|-------:|`,
  );
  await waitUntil(() => treeOf(pid).length >= 2, 20_000, 'the spare worker starts');
  await pause(SETTLE_MS);
  report('started, one spare', pid);
  const client = await clientFor(daemon.url);
  const began = performance.now();
  await within(client.sendMessage(send('hello')), 30_000, 'one turn');
  const firstMs = performance.now() - began;
  const secondAt = performance.now();
  await within(client.sendMessage(send('hello again')), 30_000, 'a second turn');
  const secondMs = performance.now() - secondAt;
  await pause(SETTLE_MS);
  report('after two turns', pid);
  // The first turn runs on the spare (which imports a turn's modules then), the second on the same worker, reused.
  console.log(`first turn ${firstMs.toFixed(1)} ms, second ${secondMs.toFixed(1)} ms (A2A message to answer)`);
  console.log(
    'RSS sums count a page daemon and worker share (the node binary) in each; PSS splits shared pages among every\n' +
      'process mapping them (other node processes on this machine included); USS is what each process alone holds;\n' +
      'once: the physical pages the tree holds, each counted once (n/a without the rights to read page frames).',
  );
} finally {
  await daemon.stop();
  await model.close();
}
