// The A2A listener as a producer (reference §17): its task backend turns callers' messages into `a2a_message`
// events and owns their tasks; the listener serves them over HTTP. Off unless `a2a.listen` is set.
import { randomInt } from 'node:crypto';
import { isLoopbackHost } from '../config/a2aKeys.js';
import type { Config } from '../config/types.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { VERSION } from '../runtime/version.js';
import { FeedHub } from './feedHub.js';
import { A2aListener } from './listener.js';
import { PairingCodes } from './pairingCodes.js';
import { IMPLICIT_OPERATOR } from './principals.js';
import { TaskBackend } from './taskBackend.js';
import { TaskFeed } from './taskFeed.js';

export class A2aProducer implements Producer {
  readonly name = 'a2a';
  private listener: A2aListener | null = null;
  private backend: TaskBackend | null = null;
  private ctx: ProducerContext | null = null;
  private feed: FeedHub | null = null;

  /** The bound URL once started (`a2a.listen` with port 0 gets a free one). */
  get url(): string | null {
    return this.listener?.url ?? null;
  }

  async start(ctx: ProducerContext): Promise<void> {
    const { config, log } = ctx;
    // Retention read at each pass: a reload's keys apply to the next one (issue 18 item 1).
    const feed = new FeedHub(ctx.store, log, ctx.clock, () => ({
      events: config.a2a.feed.retain_events,
      eventsAgeMs: config.a2a.feed.retain_age,
      tasks: config.a2a.tasks.retain,
      tasksAgeMs: config.a2a.tasks.retain_age,
    }));
    // In memory only: a restart voids every code (a session it opened ends with the process too).
    const pairing = new PairingCodes(randomInt);
    const backend = new TaskBackend({
      store: ctx.store,
      log,
      now: ctx.clock,
      supervisor: ctx.supervisor,
      accept: ctx.accept,
      drain: () => ctx.requestStop(),
      reload: () => ctx.reload(),
      pairing: (principal) => pairing.issue(principal, ctx.clock()),
      // Read at each message: a reload changes wake_on for the next one (interfaces §3.6).
      wake: {
        get wake_on() {
          return config.agent.wake_on;
        },
        get on_workflow_finished() {
          return config.agent.on_workflow_finished;
        },
      },
      ready: ctx.restored,
      feed: new TaskFeed(feed, () => ctx.supervisor.status()),
    });
    ctx.tasks.bind(backend);
    this.ctx = ctx;
    this.backend = backend;
    this.feed = feed;
    const instance = { name: config.agent.name, version: VERSION };
    const webhooks = ctx.webhooks;
    this.listener = await A2aListener.start({
      ...{ config, backend, log, instance, feed, pairing },
      ...(webhooks ? { webhooks } : {}),
    });
    feed.start();
    backend.setListening(true);
    this.printPairingCode(pairing, this.listener.url, ctx);
  }

  /**
   * A loopback daemon prints one pairing code at start, so whoever started it can open the web UI without a
   * configured token (interfaces §2.2). A code is short-lived and single use; a non-loopback daemon prints none
   * (its log may travel): an operator asks for one with `agentd pair`.
   */
  private printPairingCode(pairing: PairingCodes, url: string, ctx: ProducerContext): void {
    if (!isLoopbackHost(new URL(url).hostname)) return;
    const { code, expiresAt } = pairing.issue(IMPLICIT_OPERATOR, ctx.clock());
    ctx.log.info('ui.pairing_code', { code, expires_in_ms: expiresAt - ctx.clock(), ui: `${url}/ui` });
  }

  /** New messages are refused with a `draining` error; streams of running tasks stay open to hear their end. */
  stopIntake(): void {
    this.backend?.stopIntake();
  }

  async stop(): Promise<void> {
    this.backend?.close();
    await this.listener?.close();
    await this.feed?.close();
    if (this.backend) this.ctx?.tasks.unbind(this.backend);
    this.listener = null;
  }
}

/** Registered in runtime/producerList.ts: on while `a2a.listen` is set. */
export function a2aProducer(config: Readonly<Config>): A2aProducer | null {
  return config.a2a.listen === null ? null : new A2aProducer();
}
