// The A2A listener as a producer (reference §17): its task backend turns callers' messages into `a2a_message`
// events and owns their tasks; the listener serves them over HTTP. Off unless `a2a.listen` is set.
import type { Config } from '../config/types.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { VERSION } from '../runtime/version.js';
import { A2aListener } from './listener.js';
import { TaskBackend } from './taskBackend.js';

export class A2aProducer implements Producer {
  readonly name = 'a2a';
  private listener: A2aListener | null = null;
  private backend: TaskBackend | null = null;
  private ctx: ProducerContext | null = null;

  /** The bound URL once started (`a2a.listen` with port 0 gets a free one). */
  get url(): string | null {
    return this.listener?.url ?? null;
  }

  async start(ctx: ProducerContext): Promise<void> {
    const { config, log } = ctx;
    const backend = new TaskBackend({
      store: ctx.store,
      log,
      now: ctx.clock,
      supervisor: ctx.supervisor,
      accept: ctx.accept,
      drain: () => ctx.requestStop(),
      reload: () => ctx.reload(),
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
    });
    ctx.tasks.bind(backend);
    this.ctx = ctx;
    this.backend = backend;
    const instance = { name: config.agent.name, version: VERSION };
    const webhooks = ctx.webhooks;
    this.listener = await A2aListener.start({ config, backend, log, instance, ...(webhooks ? { webhooks } : {}) });
    backend.setListening(true);
  }

  /** New messages are refused with a `draining` error; streams of running tasks stay open to hear their end. */
  stopIntake(): void {
    this.backend?.stopIntake();
  }

  async stop(): Promise<void> {
    this.backend?.close();
    await this.listener?.close();
    if (this.backend) this.ctx?.tasks.unbind(this.backend);
    this.listener = null;
  }
}

/** Registered in runtime/producerList.ts: on while `a2a.listen` is set. */
export function a2aProducer(config: Readonly<Config>): A2aProducer | null {
  return config.a2a.listen === null ? null : new A2aProducer();
}
