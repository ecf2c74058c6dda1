// One life of a workflow desk in its own process, for crash tests: opens the desk over the SQLite store in argv[2]
// with the definition in argv[3] (JSON), fires its once starts, prints every event as a JSON line on stdout, and
// exits 0 once no run is live (a test SIGKILLs it before that to stand for a crash). With argv[4] `timers` the
// desk runs on a durable timer service over the same store, as in the daemon; with `kill:<point>` the process
// SIGKILLs itself at that engine kill point (e.g. `step.running@x`: step x committed running, its effect not run).
import { createLogger } from '../../src/obs/log.js';
import { SqliteStore } from '../../src/store/sqliteStore.js';
import { TimerService } from '../../src/triggers/timerService.js';
import { loadWorkflow } from '../../src/workflows/definitions.js';
import { WorkflowDesk } from '../../src/workflows/workflowDesk.js';

const [dir, doc, mode] = process.argv.slice(2);
if (!dir || !doc) throw new Error('usage: workflowLife <store dir> <definition json>');
const loaded = loadWorkflow(JSON.parse(doc));
if (!loaded.ok) throw new Error(loaded.errors.join('; '));
const store = new SqliteStore(dir);
const log = createLogger({ level: 'debug', write: (line) => process.stdout.write(line) });
const killAt = mode?.startsWith('kill:') ? mode.slice('kill:'.length) : null;
const timers = mode === 'timers' ? new TimerService({ timers: store.timers, log }) : null;
const desk = new WorkflowDesk({
  store,
  log,
  clock: Date.now,
  ports: { memory: store.memory, fetch, lookup: async () => [] },
  configured: [loaded.def],
  onRunEnded: () => {},
  ...(timers ? { timers } : {}),
  ...(killAt ? { killPoint: (name: string) => name === killAt && process.kill(process.pid, 'SIGKILL') } : {}),
});
await timers?.start();
await desk.open();
await desk.fireOnce();
while (desk.engine.live().length > 0) await new Promise((r) => setTimeout(r, 20));
await desk.stop();
await timers?.stop();
await store.close();
