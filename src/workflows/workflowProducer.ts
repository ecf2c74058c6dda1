// Workflows as a producer (producers reference §0.1, §2.9, §2.14): opens the desk over the store (restoring live
// runs), fires `once` starts, offers the desk to the workflow.* tools through the `workflows` work port, and leaves
// the wake note of a finished run in the conversation that started it.
import { lookup } from 'node:dns/promises';
import type { AgentConfig } from '../config/types.js';
import type { WorkflowRun } from '../domain/workflow.js';
import { describeError } from '../errors.js';
import type { Producer, ProducerContext } from '../runtime/producer.js';
import { WorkflowDesk } from './workflowDesk.js';

declare module '../tools/toolOutcome.js' {
  interface WorkPortMap {
    /** The workflow desk: definitions, starts, runs (the workflow.* tools). */
    workflows(): WorkflowDesk;
  }
}

const NOTE_CHARS = 400;

/**
 * The note a finished run leaves (reference §2.14), or null: as for a message.send run (steering/wakeNotes.ts), a
 * failure is noted while `agent.wake_on` holds `workflow_failed`; a completion when `wake_on` holds
 * `workflow_finished` or `on_workflow_finished` is `note`/`think` (think acts as note here).
 */
export function runNote(
  run: Readonly<WorkflowRun>,
  agent: Pick<AgentConfig, 'wake_on' | 'on_workflow_finished'>,
): string | null {
  const completed = run.status === 'completed';
  const wanted = completed
    ? agent.wake_on.includes('workflow_finished') || agent.on_workflow_finished !== 'ignore'
    : agent.wake_on.includes('workflow_failed');
  if (!wanted) return null;
  const detail = completed ? (JSON.stringify(run.output) ?? 'null') : (run.error ?? run.status);
  const chars = [...detail];
  const cut = chars.length > NOTE_CHARS ? `${chars.slice(0, NOTE_CHARS).join('')}…` : detail;
  return `workflow ${run.workflow} run ${run.id} ${run.status}: ${cut}`;
}

export class WorkflowProducer implements Producer {
  readonly name = 'workflows';
  #desk: WorkflowDesk | null = null;
  #unplug: (() => void) | null = null;

  start(ctx: ProducerContext): void {
    const desk = new WorkflowDesk({
      store: ctx.store,
      log: ctx.log,
      clock: ctx.clock,
      ports: {
        memory: ctx.store.memory,
        fetch,
        lookup: async (host) => (await lookup(host, { all: true })).map((a) => a.address),
      },
      configured: ctx.config.workflows,
      onRunEnded: (run) => this.#noteEnd(ctx, run),
    });
    this.#desk = desk;
    this.#unplug = ctx.ports.plug('workflows', () => desk);
    // The supervisor restores after every producer started: the desk opens once conversations are loaded.
    ctx.restored
      .then(() => desk.open())
      .then(() => desk.fireOnce())
      .catch((err: unknown) => ctx.log.error('producer.failed', { producer: this.name, err: describeError(err) }));
  }

  #noteEnd(ctx: ProducerContext, run: Readonly<WorkflowRun>): void {
    if (run.conversation === null) return;
    const text = runNote(run, ctx.config.agent);
    if (text === null) return;
    try {
      ctx.supervisor.steering.note(run.conversation, text, run.principal);
    } catch (err) {
      ctx.log.error('inbox.accept.fail', { ctx: run.conversation, run: run.id, err: describeError(err) });
    }
  }

  async stop(): Promise<void> {
    this.#unplug?.();
    this.#unplug = null;
    await this.#desk?.stop();
  }
}

/** Registered in runtime/producerList.ts: always on (no definitions ⇒ it only serves workflow.create). */
export function workflowProducer(): WorkflowProducer {
  return new WorkflowProducer();
}
