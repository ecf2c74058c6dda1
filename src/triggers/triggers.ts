// The runtime's trigger parts: the schedule runner on the supervisor's timer service and the webhook routes the
// A2A listener serves. Built empty; the workflow engine registers its start nodes on them.
import type { IncomingMessage } from 'node:http';
import { authenticate } from '../a2a/principals.js';
import { isLoopbackHost } from '../config/a2aKeys.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Metrics } from '../obs/metrics.js';
import type { Store } from '../store/store.js';
import { A2aStarts } from './a2aStarts.js';
import { ScheduleRunner } from './scheduleRunner.js';
import type { PressureNow } from './shedPolicy.js';
import type { TimerService } from './timerService.js';
import { type TriggerMetrics, triggerMetrics } from './triggerMetrics.js';
import { WebhookRoutes } from './webhooks.js';

export interface Triggers {
  schedules: ScheduleRunner;
  webhooks: WebhookRoutes;
  /** The `a2a` starts the task backend asks before a new message becomes a turn. */
  a2aStarts: A2aStarts;
  /** Firings, catch-ups and webhook deliveries counted on the instance's metrics. */
  metrics: TriggerMetrics;
  /** The pressure gate's last reading: recurring firings are shed under it. */
  pressure(): PressureNow;
}

/** The trigger parts over `store` and the supervisor's `timers`; `cfg` is read per request (a reload applies). */
export function buildTriggers(
  cfg: Readonly<Config>,
  store: Store,
  timers: TimerService,
  log: Logger,
  parts: { metrics: Pick<Metrics, 'counter'>; pressure: PressureNow },
): Triggers {
  const metrics = triggerMetrics(parts.metrics);
  const pressure = (): PressureNow => ({ ...parts.pressure });
  return {
    metrics,
    pressure,
    schedules: new ScheduleRunner({ timers, store: store.timers, log, metrics }),
    a2aStarts: new A2aStarts(),
    webhooks: new WebhookRoutes({
      keys: store.timers,
      log,
      now: Date.now,
      limits: () => ({ maxBodyBytes: cfg.a2a.max_body_bytes, bodyTimeoutMs: cfg.a2a.body_timeout }),
      caller: (req) => callerOf(cfg, req),
      metrics,
      pressure,
    }),
  };
}

/**
 * A webhook caller's principal by the listener's own rule (`a2a.principals`, a bearer token; with none configured,
 * the loopback operator); null when refused. The operator acts for nobody in particular: its runs reach everything.
 */
function callerOf(cfg: Readonly<Config>, req: IncomingMessage): string | null {
  const found = authenticate(cfg.a2a, {
    remoteLoopback: isLoopbackHost(req.socket.remoteAddress ?? ''),
    ...(req.headers.authorization === undefined ? {} : { authorization: req.headers.authorization }),
  });
  if ('refused' in found) return null;
  return found.id;
}
