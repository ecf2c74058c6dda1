// Which trace each worker child joins (reference §3.4), so one message is one trace: its `accept` span, then its
// preflight, its turn's `invoke_agent` span and, under that turn, the think children and subagents it started;
// the compaction after a turn joins that turn's trace. A preflight, a compaction and a subagent get a span of their
// own here that their worker's spans nest under. Holds traceparents only; never blocks a spawn.
import type { InboxEvent } from '../domain/inbox.js';
import type { SpawnPayload } from '../protocol/frames.js';
import type { SpanHandle, Tracer } from './tracing.js';

/** What the child table tells about a child (supervisor/children.ts). */
export interface TracedChild {
  node: number;
  kind: 'turn' | 'preflight' | 'compaction' | 'think' | 'decide' | 'subagent';
  ctx: string;
  parentNode: number | null;
  /** The inbox event a preflight works for (its message's accept span is its parent); null otherwise. */
  event: string | null;
}

/** The child table's tracing seam: told of each spawn (before its frame goes) and of each end. */
export interface ChildTracing {
  spawned(child: TracedChild, payload: SpawnPayload): void;
  gone(child: TracedChild, error: string | null): void;
}

/** How many accepted messages and finished turns keep their traceparent for children still to come. */
const REMEMBERED = 1_000;

/** A map that forgets its oldest entries past `REMEMBERED`. */
function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value as string);
}

export class ChildTraces implements ChildTracing {
  /** The accept span of each message, by inbox event id (its preflight and turn start under it). Keyed by
   * message, not conversation: a message queued behind a slow turn must not lend its span to the one before. */
  private readonly accepts = new Map<string, string>();
  /** The span of each conversation's latest turn (its compaction and late subagents join it). */
  private readonly lastTurn = new Map<string, string>();
  /** Each traced live child: its trace context, and the span this module opened for it. */
  private readonly live = new Map<number, { traceparent: string; span: SpanHandle | null }>();

  constructor(
    private readonly tracer: Tracer,
    private readonly now: () => number,
  ) {}

  /** The accept span: from the event's stamp (taken before its commit) to now, once it is queued. */
  accepted(event: InboxEvent): void {
    const attributes = {
      'gen_ai.conversation.id': event.payload.context_id,
      'agentd.inbox_event': event.id,
      'agentd.inbox_kind': event.kind,
    };
    const span = this.tracer.start('accept', attributes, null, event.ts);
    span.end(undefined, Math.max(event.ts, this.now()));
    remember(this.accepts, event.id, span.traceparent);
  }

  /** The parent of a message's turn span: that message's accept span, or null (a new trace). */
  turnParent(eventId: string): string | null {
    return this.accepts.get(eventId) ?? null;
  }

  spawned(child: TracedChild, payload: SpawnPayload): void {
    const trace = payload.telemetry.trace;
    if (!trace) return; // tracing off
    if (child.kind === 'turn') {
      // Its invoke_agent span is the turn workers' (turnWorkers.ts), already in the frame.
      this.live.set(child.node, { traceparent: trace.traceparent, span: null });
      remember(this.lastTurn, child.ctx, trace.traceparent);
      return;
    }
    const parent = this.parentOf(child);
    if (parent === null && (child.kind === 'think' || child.kind === 'decide')) {
      delete payload.telemetry.trace; // its turn is gone: no orphan trace
      return;
    }
    const span = child.kind === 'think' || child.kind === 'decide' ? null : this.stepSpan(child, parent);
    const traceparent = span?.traceparent ?? String(parent);
    payload.telemetry.trace = { traceparent, endpoint: trace.endpoint };
    this.live.set(child.node, { traceparent, span });
  }

  gone(child: TracedChild, error: string | null): void {
    this.live.get(child.node)?.span?.end(error ?? undefined);
    this.live.delete(child.node);
  }

  /** A think child's turn; a subagent's caller (its live turn, else its latest); a step's message or turn. */
  private parentOf(child: TracedChild): string | null {
    if (child.parentNode !== null) return this.live.get(child.parentNode)?.traceparent ?? null;
    if (child.kind === 'preflight') return child.event === null ? null : (this.accepts.get(child.event) ?? null);
    return this.lastTurn.get(child.ctx) ?? null;
  }

  /** The span a preflight, a compaction or a subagent runs under. */
  private stepSpan(child: TracedChild, parent: string | null): SpanHandle {
    const conversation = { 'gen_ai.conversation.id': child.ctx };
    if (child.kind === 'subagent') {
      const attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'subagent', ...conversation };
      return this.tracer.start('invoke_agent subagent', attributes, parent);
    }
    return this.tracer.start(child.kind, { 'agentd.step': child.kind, ...conversation }, parent);
  }
}
