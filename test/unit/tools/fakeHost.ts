// A fake InternalToolHost for the internal tool tests: memory over a Map, one conversation, recorded events,
// and the optional capabilities (deliver, status, think, watch, askHuman) scripted per test.
import assert from 'node:assert/strict';
import { newConversation } from '../../../src/context/conversation.js';
import type { Conversation } from '../../../src/domain/conversation.js';
import type { MemoryEntry } from '../../../src/domain/memory.js';
import { MemoryChanges } from '../../../src/store/memoryChanges.js';
import type { MemoryChange, MemoryPort } from '../../../src/store/store.js';
import {
  type InternalToolHost,
  runInternalTool,
  type ToolCaller,
  type ToolOutcome,
  type ToolResult,
} from '../../../src/tools/internalTools.js';

/** The memory port over a Map, honouring expiry and announcing changes like the real stores. */
export class FakeMemory implements MemoryPort {
  readonly entries = new Map<string, MemoryEntry>();
  readonly #changes = new MemoryChanges();
  async get(key: string, now: number): Promise<MemoryEntry | null> {
    return this.read(key, now);
  }
  async set(entry: MemoryEntry): Promise<void> {
    this.entries.set(entry.key, entry);
    this.#changes.emit({ key: entry.key, entry });
  }
  async list(prefix: string, limit: number, now: number): Promise<{ keys: string[]; truncated: boolean }> {
    const keys = [...this.entries.keys()].filter((k) => k.startsWith(prefix) && this.read(k, now) !== null).sort();
    return { keys: keys.slice(0, limit), truncated: keys.length > limit };
  }
  async delete(key: string): Promise<boolean> {
    const existed = this.entries.delete(key);
    if (existed) this.#changes.emit({ key, entry: null });
    return existed;
  }
  onChange(listener: (change: MemoryChange) => void): () => void {
    return this.#changes.subscribe(listener);
  }
  private read(key: string, now: number): MemoryEntry | null {
    const entry = this.entries.get(key);
    return entry === undefined || (entry.expires !== null && entry.expires < now) ? null : entry;
  }
}

export interface Harness {
  host: InternalToolHost;
  memory: FakeMemory;
  conv: Conversation;
  dirty: string[];
  planEvents: [string, string, string][];
  schemaEvents: [string, string][];
  clock: { now: number };
}

/** A host over conversation c1 (owned by alice) at t = 1000; no optional capability unless a test adds it. */
export function harness(): Harness {
  const clock = { now: 1_000 };
  const memory = new FakeMemory();
  const conv = newConversation('c1', 'conversation', 'alice', 0);
  const dirty: string[] = [];
  const planEvents: [string, string, string][] = [];
  const schemaEvents: [string, string][] = [];
  const host: InternalToolHost = {
    now: () => clock.now,
    instance: 'agent-x',
    memory,
    conversation: (id) => {
      assert.equal(id, 'c1');
      return conv;
    },
    setPlan: (c, plan) => {
      c.plan = plan;
      c.updated = clock.now;
      dirty.push(c.id);
    },
    planMaxItems: 4,
    maxMessageDepth: 8,
    askHumanFallback: 'fail',
    humanChannel: false,
    onPlanUpdated: (ctx, op, progress) => planEvents.push([ctx, op, progress]),
    onResultSchemaMismatch: (tool, why) => schemaEvents.push([tool, why]),
  };
  return { host, memory, conv, dirty, planEvents, schemaEvents, clock };
}

/** A conversation turn's caller in c1 at hop depth 0. */
export const caller: ToolCaller = {
  conversation: 'c1',
  principal: 'alice',
  turnId: 'turn-1',
  depth: 0,
  kind: 'conversation',
};

export function run(h: Harness, name: string, args: unknown, who: ToolCaller = caller): ToolOutcome {
  return runInternalTool(name, args, who, h.host);
}

/** The result of an outcome that must be ready. */
export function ready(outcome: ToolOutcome): ToolResult {
  assert.equal(outcome.kind, 'ready');
  return outcome.kind === 'ready'
    ? { result: outcome.result, is_error: outcome.is_error }
    : { result: null, is_error: true };
}

/** The result of an outcome that is ready, or deferred (settled first); never a park. */
export async function answered(outcome: ToolOutcome): Promise<ToolResult> {
  if (outcome.kind === 'ready') return { result: outcome.result, is_error: outcome.is_error };
  assert.equal(outcome.kind, 'defer');
  return outcome.kind === 'defer' ? await outcome.promise : { result: null, is_error: true };
}

/** The settled result of an outcome that must be deferred. */
export async function deferred(outcome: ToolOutcome): Promise<ToolResult> {
  assert.equal(outcome.kind, 'defer');
  return outcome.kind === 'defer' ? await outcome.promise : { result: null, is_error: true };
}

export const ok = (result: unknown): ToolResult => ({ result, is_error: false });
export const err = (result: string): ToolResult => ({ result, is_error: true });
