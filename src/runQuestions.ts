// The embedding API's person: a question a run's turn asks (ask_human, a tool policy's `ask`) goes to the program
// that started the run as a `question` RunEvent, and agent.answer() answers it; the run's checklist changes arrive
// as `plan` events. Owns the open questions and their timers (none outlives close()); touches no store.
import { randomUUID } from 'node:crypto';
import type { InboxEvent } from './domain/inbox.js';
import type { RunEvent } from './domain/runEvent.js';
import { OpenQuestions, STOPPING } from './runtime/openQuestions.js';
import type { RunHooks } from './runtime/taskSlot.js';
import type { EngineEventType, HumanAsk } from './supervisor/supervisorOptions.js';
import type { ToolResult } from './tools/internalTools.js';

type Sink = (event: RunEvent) => void;

const UNANSWERED: ToolResult = { result: { reply: null, timed_out: true }, is_error: false };

/** The dedupe key prefix of a message agent.run accepted: the run is known by it before its event id exists. */
const RUN_KEY = 'agent.run:';

export class RunDesk implements RunHooks {
  /** Runs by their message's dedupe key: a turn may launch before accept() has returned the event id. */
  private readonly byKey = new Map<string, Sink>();
  private readonly byEvent = new Map<string, Sink>();
  /** Open questions by question id, and each run's, oldest first. */
  private readonly open = new OpenQuestions();
  private readonly asked = new Map<string, string[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A run about to be accepted: returns the dedupe key its message carries. */
  expect(sink: Sink): string {
    const key = `${RUN_KEY}${randomUUID()}`;
    this.byKey.set(key, sink);
    return key;
  }

  /** The run's message was accepted as event `runId`. */
  opened(key: string, runId: string): void {
    const sink = this.byKey.get(key);
    this.byKey.delete(key);
    if (sink) this.byEvent.set(runId, sink);
  }

  /** The run ended (or was never accepted): it is forgotten, and a question still open is closed unanswered. */
  ended(key: string, runId: string | null): void {
    this.byKey.delete(key);
    if (runId === null) return;
    this.byEvent.delete(runId);
    for (const id of this.asked.get(runId) ?? []) this.open.close(id, UNANSWERED);
    this.asked.delete(runId);
  }

  claims(event: InboxEvent): boolean {
    if (this.byEvent.has(event.id)) return true;
    const sink = event.dedupe_key === undefined ? undefined : this.byKey.get(event.dedupe_key);
    if (sink) this.byEvent.set(event.id, sink);
    return sink !== undefined;
  }

  askHuman(ask: HumanAsk): Promise<ToolResult> | null {
    const sink = this.byEvent.get(ask.eventId);
    if (!sink) return null;
    if (this.open.isClosed) return Promise.resolve(STOPPING);
    const questionId = randomUUID();
    const runId = ask.eventId;
    this.asked.set(runId, [...(this.asked.get(runId) ?? []), questionId]);
    const answered = this.open.wait(
      questionId,
      ask.timeoutAt - this.now(),
      () => this.open.close(questionId, UNANSWERED),
      STOPPING,
    );
    sink({
      type: 'question',
      runId,
      questionId,
      kind: ask.approval ? 'approval' : 'ask_human',
      question: ask.question,
      expiresAt: ask.timeoutAt,
      ...(ask.schema ? { schema: ask.schema } : {}),
      ...(ask.approval ? { tool: ask.approval.tool } : {}),
    });
    return answered.finally(() => {
      const left = (this.asked.get(runId) ?? []).filter((id) => id !== questionId);
      if (left.length > 0) this.asked.set(runId, left);
      else this.asked.delete(runId);
    });
  }

  onEngineEvent(eventId: string, type: EngineEventType, fields: Record<string, unknown>): void {
    if (type !== 'checklist') return;
    const sink = this.byEvent.get(eventId);
    const text = (v: unknown): string => (typeof v === 'string' ? v : '');
    sink?.({
      type: 'plan',
      runId: eventId,
      conversation: text(fields.ctx),
      op: text(fields.op),
      progress: text(fields.progress),
    });
  }

  /** Answers a run's oldest open question (`id` a run id), or one question (`id` a question id); false when none. */
  answer(id: string, text: string): boolean {
    const ofRun = this.asked.get(id)?.find((q) => this.open.has(q));
    const questionId = ofRun ?? (this.open.has(id) ? id : null);
    if (questionId === null) return false;
    this.open.close(questionId, { result: { reply: text, timed_out: false }, is_error: false });
    return true;
  }

  /** The agent stops: every open question ends (its turn sees a tool error) and no timer is left. */
  close(): void {
    this.open.closeAll(STOPPING);
  }
}
