// The producer registry: starts producers one at a time in registration order and stops them in the reverse
// order. A start that fails stops the ones already started (newest first) and rethrows: nothing is left half up.
// A producer whose intake was stopped has its own accepts refused from then on; one without `stopIntake` (work a
// running turn starts: message.send, side tasks, notes) keeps accepting, durably, until it stops.
import { DaemonError, describeError } from '../errors.js';
import type { Producer, ProducerContext } from './producer.js';

export class ProducerRegistry {
  private readonly started: Producer[] = [];
  private readonly closed = new Set<Producer>();

  constructor(private readonly producers: readonly Producer[]) {}

  /** The names in registration order. */
  get names(): string[] {
    return this.producers.map((p) => p.name);
  }

  async start(ctx: ProducerContext): Promise<void> {
    for (const producer of this.producers) {
      try {
        await producer.start(this.contextFor(producer, ctx));
      } catch (err) {
        ctx.log.error('producer.failed', { producer: producer.name, err: describeError(err) });
        await this.stop(ctx);
        throw err;
      }
      this.started.push(producer);
      ctx.log.debug('producer.started', { producer: producer.name });
    }
  }

  /** Asks every started producer to take no new work, newest first; a failure is logged and the rest go on. */
  async stopIntake(ctx: Pick<ProducerContext, 'log'>): Promise<void> {
    for (const producer of [...this.started].reverse()) {
      if (!producer.stopIntake) continue;
      this.closed.add(producer);
      try {
        await producer.stopIntake();
      } catch (err) {
        ctx.log.error('producer.failed', { producer: producer.name, err: describeError(err) });
      }
    }
  }

  /** The producer's own context: its accepts are refused once its intake stopped. */
  private contextFor(producer: Producer, ctx: ProducerContext): ProducerContext {
    return {
      ...ctx,
      accept: (input) =>
        this.closed.has(producer)
          ? Promise.reject(new DaemonError('usage_invalid', 'the agent is draining and accepts no new events'))
          : ctx.accept(input),
    };
  }

  /** Stops every started producer, newest first; a stop that throws is logged and the rest still stop. */
  async stop(ctx: Pick<ProducerContext, 'log'>): Promise<void> {
    for (let producer = this.started.pop(); producer; producer = this.started.pop()) {
      try {
        await producer.stop();
      } catch (err) {
        ctx.log.error('producer.failed', { producer: producer.name, err: describeError(err) });
      }
    }
  }
}
