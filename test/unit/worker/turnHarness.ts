// Test harness for the round loop: a spawn payload aimed at a scripted model and TurnDeps with a fake
// internal-tool bridge that records what crossed it.
import { callModel } from '../../../src/intel/modelClient.js';
import { silentLogger } from '../../../src/obs/log.js';
import type { SpawnPayload, TurnResult, TurnSpec } from '../../../src/protocol/frames.js';
import { PROTOCOL_VERSION } from '../../../src/protocol/frames.js';
import type { Msg, ToolDef } from '../../../src/protocol/messages.js';
import type { TurnDeps } from '../../../src/worker/roundLoop.js';
import { runTurn } from '../../../src/worker/roundLoop.js';
import type { ToolAnswer } from '../../../src/worker/toolRunner.js';

export const tool = (name: string): ToolDef => ({
  name,
  description: `the ${name} tool`,
  input_schema: { type: 'object' },
});

export const INTERNAL = ['memory.set', 'memory.get', 'plan.create', 'finish', 'sleep'];

export interface PayloadOptions {
  turn?: Partial<TurnSpec>;
  limits?: Partial<SpawnPayload['limits']>;
  token?: string | null;
  endpoints?: string[];
}

export function makePayload(url: string, opts: PayloadOptions = {}): SpawnPayload {
  const messages: Msg[] = [{ role: 'user', text: 'hello', ts: 1 }];
  return {
    version: PROTOCOL_VERSION,
    mcp_servers: [],
    code_tools_module: null,
    intelligence: {
      endpoints: opts.endpoints ?? [url],
      token: opts.token ?? null,
      timeout_ms: 120_000,
      model: 'test-model',
      dialect: 'openai',
      headers: [],
    },
    limits: { max_steps: 20, max_tokens: 0, deadline_ms: 10_000, ...opts.limits },
    telemetry: { instance: 'test', agent_path: 'turn/root', log_level: 'error', log_content: false },
    turn: {
      kind: 'turn',
      system: 'You are a test agent.',
      messages,
      tools: [...INTERNAL, 'fs.read', 'no.such.tool'].map(tool),
      internal: INTERNAL,
      mcp_routes: { 'fs.read': ['fs', 'read'] },
      max_rounds: 0,
      budget_admission: false,
      idempotency_prefix: 'test/root',
      max_tokens_per_call: 0,
      turn_id: 'turn-1',
      ...opts.turn,
    },
  };
}

export interface Bridge {
  calls: Array<{ name: string; args: unknown }>;
  progress: Array<{ event: string; fields: Record<string, unknown> }>;
  cancel: AbortController;
}

export interface DepsOptions {
  /** Answers internal calls; default `{ok: true}`. Return null for "no answer". */
  answer?: (name: string, args: unknown, bridge: Bridge) => ToolAnswer | null | Promise<ToolAnswer | null>;
  deps?: Partial<TurnDeps>;
}

export function makeDeps(payload: SpawnPayload, opts: DepsOptions = {}): { deps: TurnDeps; bridge: Bridge } {
  const bridge: Bridge = { calls: [], progress: [], cancel: new AbortController() };
  const deps: TurnDeps = {
    callModel: (req, signal) => callModel(payload.intelligence, req, signal, { backoffMs: [20, 40] }),
    callInternal: async (name, args) => {
      bridge.calls.push({ name, args });
      return opts.answer ? opts.answer(name, args, bridge) : { result: { ok: true }, is_error: false };
    },
    progress: (event, fields) => bridge.progress.push({ event, fields }),
    log: silentLogger,
    cancelled: () => bridge.cancel.signal.aborted,
    cancelSignal: bridge.cancel.signal,
    now: Date.now,
    ...opts.deps,
  };
  return { deps, bridge };
}

/** Runs a turn with a hard timeout so a hung loop fails the test instead of the suite. */
export async function runWithTimeout(payload: SpawnPayload, deps: TurnDeps, ms = 10_000): Promise<TurnResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`turn did not end within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([runTurn(payload, deps), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The delta's roles, in order. */
export const roles = (result: TurnResult): string[] => result.messages.map((m) => m.role);

/** Messages of a recorded request body. */
export function wireMessages(body: unknown): Array<Record<string, unknown>> {
  return ((body as { messages?: unknown[] }).messages ?? []) as Array<Record<string, unknown>>;
}
