// The runtime's trigger parts: the schedule runner on the supervisor's timer service and the webhook routes the
// A2A listener serves. Built empty; the workflow engine registers its start nodes on them.
import type { Config } from '../config/types.js';
import type { Logger } from '../obs/log.js';
import type { Store } from '../store/store.js';
import { ScheduleRunner } from './scheduleRunner.js';
import type { TimerService } from './timerService.js';
import { WebhookRoutes } from './webhooks.js';

export interface Triggers {
  schedules: ScheduleRunner;
  webhooks: WebhookRoutes;
}

/** The trigger parts over `store` and the supervisor's `timers`; `cfg` is read per request (a reload applies). */
export function buildTriggers(cfg: Readonly<Config>, store: Store, timers: TimerService, log: Logger): Triggers {
  return {
    schedules: new ScheduleRunner({ timers, store: store.timers, log }),
    webhooks: new WebhookRoutes({
      keys: store.timers,
      log,
      now: Date.now,
      limits: () => ({ maxBodyBytes: cfg.a2a.max_body_bytes, bodyTimeoutMs: cfg.a2a.body_timeout }),
    }),
  };
}
