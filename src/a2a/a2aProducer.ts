// The A2A listener as a producer (reference §17): its task backend turns callers' messages into `a2a_message`
// events and owns their tasks; the listener serves them over HTTP. Off unless `a2a.listen` is set, or started by
// createAgent with its listener opened later (serve()): the backend owns the tasks from the restore on either way.
import { randomInt } from 'node:crypto';
import type { Config } from '../config/types.js';
import { DaemonError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { VERSION } from '../runtime/version.js';
import type { PairingAnswer } from './commands.js';
import { FeedHub } from './feedHub.js';
import { A2aListener } from './listener.js';
import { PairingCodes, pairingPrincipalId, wantsStartCode } from './pairingCodes.js';
import { IMPLICIT_OPERATOR } from './principals.js';
import { TaskBackend } from './taskBackend.js';
import { TaskFeed } from './taskFeed.js';
import { WebSessions } from './webSessions.js';

export class A2aProducer implements Producer {
  readonly name = 'a2a';
  private listener: A2aListener | null = null;
  private backend: TaskBackend | null = null;
  private ctx: ProducerContext | null = null;
  private feed: FeedHub | null = null;
  private taskFeed: TaskFeed | null = null;
  /** The listener being opened: a second listen() while the first awaits joins it instead of opening another. */
  private opening: Promise<void> | null = null;
  private stopped = false;
  private pairing: {
    codes: PairingCodes;
    sessions: WebSessions;
    mint: () => Promise<PairingAnswer | null>;
  } | null = null;

  /**
   * `listenLater`: start() binds the task backend (restart recovery, replayed turns folding into their tasks) but
   * opens no listener; `listen()` does, later (the embedding API's serve()).
   */
  private unplugUrl: (() => void) | null = null;

  constructor(private readonly opts: { listenLater?: boolean } = {}) {}

  /** The bound URL once listening (`a2a.listen` with port 0 gets a free one). */
  get url(): string | null {
    return this.listener?.url ?? null;
  }

  async start(ctx: ProducerContext): Promise<void> {
    this.ctx = ctx;
    this.backend = this.openBackend(ctx);
    ctx.tasks.bind(this.backend);
    // Where a workflow's `wait on: webhook` callback URL points (workflows/stepCallbacks.ts).
    this.unplugUrl = ctx.ports.plug('listener_url', () => this.url);
    // The backend writes the feed at every fold, listener or not: its retention runs from here (reference §17).
    this.feed?.start();
    if (this.opts.listenLater) return;
    // A listener that fails to open leaves a producer the registry never marks started: stop what started here.
    await this.listen(ctx.config).catch(async (err: unknown) => {
      await this.stop();
      throw err;
    });
  }

  /**
   * Opens the HTTP listener at `config`'s `a2a.listen` (the runtime's config, or serve()'s with its URL), once:
   * later calls join the first. Rejects with `usage_invalid` once the producer stopped.
   */
  listen(config: Readonly<Config>): Promise<void> {
    if (this.stopped) return Promise.reject(new DaemonError('usage_invalid', 'a2a listen: the runtime has stopped'));
    this.opening ??= this.open(config).catch((err: unknown) => {
      this.opening = null;
      throw err;
    });
    return this.opening;
  }

  private async open(config: Readonly<Config>): Promise<void> {
    const { ctx, backend, feed, pairing } = this;
    if (!ctx || !backend || !feed || !pairing || this.listener) return;
    const instance = { name: config.agent.name, version: VERSION };
    const webhooks = ctx.webhooks;
    this.listener = await A2aListener.start({
      ...{ config, backend, log: ctx.log, instance, feed, pairing: pairing.codes, sessions: pairing.sessions },
      clock: ctx.clock,
      ...(webhooks ? { webhooks } : {}),
    });
    backend.setListening(true);
    // A code is a secret: a plain line for the person at the terminal, never an event (DESIGN: no secret in events).
    if (wantsStartCode(config.a2a, this.listener.url, process.stderr.isTTY === true)) {
      const issued = await pairing.mint();
      if (issued)
        process.stderr.write(`agentd: web UI pairing code ${issued.code} (single use, 10 min): ${issued.url}\n`);
    }
  }

  /** Answers the question task `taskId` waits on, as the operator; false when no such task waits for one. */
  async answer(taskId: string, text: string): Promise<boolean> {
    const task = await this.backend?.getTask(IMPLICIT_OPERATOR, taskId);
    if (!this.backend || task?.state !== 'input_required') return false;
    await this.backend.send(IMPLICIT_OPERATOR, { taskId, text });
    return true;
  }

  /** The task backend, its feed and the pairing codes: everything but the HTTP listener. */
  private openBackend(ctx: ProducerContext): TaskBackend {
    const { config, log } = ctx;
    // Retention read at each pass: a reload's keys apply to the next one (issue 18 item 1).
    const feed = new FeedHub(ctx.store, log, ctx.clock, () => ({
      events: config.a2a.feed.retain_events,
      eventsAgeMs: config.a2a.feed.retain_age,
      tasks: config.a2a.tasks.retain,
      tasksAgeMs: config.a2a.tasks.retain_age,
    }));
    // In the store, by hash: a code or session from one replica works on any other, and survives a restart.
    const pairing = new PairingCodes(randomInt, ctx.store.timers);
    const sessions = new WebSessions(ctx.store.timers);
    // Read at each call: a reload turns pairing on or off, or changes its role, for the next code.
    const mint = async (): Promise<PairingAnswer | null> => {
      const url = this.listener?.url;
      if (!config.a2a.pairing.enabled || url === undefined) return null;
      const now = ctx.clock();
      const { code, expiresAt } = await pairing.issue(pairingPrincipalId(config.a2a), now);
      const role = config.a2a.pairing.role;
      return { code, expires_in_ms: expiresAt - now, role, sessions: sessions.pairedCount(now), url: `${url}/ui` };
    };
    this.pairing = { codes: pairing, sessions, mint };
    this.feed = feed;
    const steering = ctx.supervisor.steering;
    const conversations = {
      goalOf: (conversation: string) => steering.goalGet(conversation, null),
      ownerOf: (conversation: string) => steering.ownerOf(conversation),
    };
    this.taskFeed = new TaskFeed(feed, () => ctx.supervisor.status(), ctx.clock, conversations);
    return new TaskBackend({
      store: ctx.store,
      log,
      now: ctx.clock,
      supervisor: ctx.supervisor,
      accept: ctx.accept,
      drain: () => ctx.requestStop(),
      reload: () => ctx.reload(),
      pairing: mint,
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
      feed: this.taskFeed,
      ...(ctx.a2aStarts ? { starts: ctx.a2aStarts } : {}),
    });
  }

  /** New messages are refused with a `draining` error; streams of running tasks stay open to hear their end. */
  stopIntake(): void {
    this.backend?.stopIntake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unplugUrl?.();
    this.backend?.close();
    await this.opening?.catch(() => {});
    await this.listener?.close();
    this.taskFeed?.close();
    await this.feed?.close();
    if (this.backend) this.ctx?.tasks.unbind(this.backend);
    this.listener = null;
  }
}

/** Registered in runtime/producerList.ts: on while `a2a.listen` is set. */
export function a2aProducer(config: Readonly<Config>): A2aProducer | null {
  return config.a2a.listen === null ? null : new A2aProducer();
}
