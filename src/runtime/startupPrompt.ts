// The startup prompt (`--prompt`, `agent.prompt`) as a producer: accepted once per store as a `startup_prompt`
// event for `root`; a restart replays or reports the same event instead of accepting the prompt again.
import { createHash } from 'node:crypto';
import type { Config } from '../config/types.js';
import { STARTUP_PROMPT_KEY } from '../domain/inbox.js';
import { DaemonError, describeError } from '../errors.js';
import type { Producer, ProducerContext } from './producer.js';

export class StartupPrompt implements Producer {
  readonly name = 'startup_prompt';
  private eventId: Promise<string> | null = null;

  constructor(private readonly prompt: string) {}

  /** Accepts in the background: a producer's start never waits for the inbox (it opens after the restore). */
  start(ctx: ProducerContext): void {
    this.eventId = acceptOnce(ctx, this.prompt);
    // Whoever awaits `accepted()` hears the error too; the log says why the prompt never ran (reference §3.2).
    this.eventId.catch((err: unknown) => ctx.log.error('prompt.reject', { ctx: 'root', err: describeError(err) }));
  }

  stop(): void {}

  /** The prompt's inbox event id: accepted by this start or by an earlier one. */
  accepted(): Promise<string> {
    return this.eventId ?? Promise.reject(new DaemonError('internal', 'the startup prompt was not started'));
  }
}

async function acceptOnce(ctx: ProducerContext, prompt: string): Promise<string> {
  const dedupe = `${STARTUP_PROMPT_KEY}${createHash('sha256').update(`root\n${prompt}`).digest('hex')}`;
  const input = {
    kind: 'startup_prompt',
    context_id: 'root',
    text: prompt,
    principal: 'operator',
    dedupe_key: dedupe,
  } as const;
  // The inbox's idempotency key: a restart gets the event it accepted before (pending or answered).
  const { record, created } = await ctx.accept(input);
  if (!created) {
    ctx.log.info('prompt.skipped', {
      inbox_event: record.id,
      reason: record.status === 'done' ? 'answered' : 'pending',
    });
  }
  return record.id;
}

/** Registered in runtime/producerList.ts: on while `agent.prompt` (or `--prompt`) is set. */
export function startupPrompt(config: Readonly<Config>): StartupPrompt | null {
  const prompt = config.agent.prompt;
  return prompt === null || prompt === '' ? null : new StartupPrompt(prompt);
}
