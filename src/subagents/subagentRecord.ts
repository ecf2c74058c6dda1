// A new subagent's record from a gated subagent.run call (reference §1.4 "Payload", §1.6): its spec (what a
// respawn needs, credential-free), its caller one hop deeper, and its limits. Pure.
import { parseDuration } from '../config/duration.js';
import type { Config } from '../config/types.js';
import type { SubagentRecord, SubagentSpec } from '../domain/subagent.js';
import type { Args } from '../tools/handlers/handler.js';
import type { ToolCaller } from '../tools/toolOutcome.js';
import type { GateVerdict } from './gates.js';

type Passed = Extract<GateVerdict, { ok: true }>;

const DEADLINE_FLOOR_MS = 1_000;

function count(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}

/** `limits.deadline` as a duration ("10m", or seconds), else `limits.run.deadline`; floored at 1 s. */
function deadlineMs(value: unknown, fallback: number): number {
  let ms = fallback;
  try {
    if (typeof value === 'string') ms = parseDuration(value);
    else if (typeof value === 'number' && Number.isFinite(value)) ms = Math.round(value * 1000);
  } catch {
    ms = fallback;
  }
  return Math.max(ms, DEADLINE_FLOOR_MS);
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : undefined;
}

/** The spec of a run: grants, limits (`limits.run` defaults), priority, seeds and the answer's shape. */
export function buildSpec(args: Args, verdict: Passed, config: Readonly<Config>): SubagentSpec {
  const limits = (args.limits as Record<string, unknown> | undefined) ?? {};
  const run = config.limits.run;
  const tools = strings(args.tools);
  const servers = strings(args.servers);
  const context = Array.isArray(args.context) ? (args.context as SubagentSpec['context']) : [];
  return {
    instruction: String(args.instruction),
    ...(tools ? { allowed_tools: tools } : {}),
    ...(servers ? { servers } : {}),
    limits: {
      max_steps: count(limits.steps, run.steps),
      max_tokens: count(limits.tokens, run.tokens),
      deadline_ms: deadlineMs(limits.deadline, run.deadline),
      ...(verdict.memoryBytes !== undefined ? { memory_bytes: verdict.memoryBytes } : {}),
      ...(verdict.cpuSeconds !== undefined ? { cpu_seconds: verdict.cpuSeconds } : {}),
    },
    priority: verdict.priority,
    context,
    ...(typeof args.output_contract === 'string' ? { output_contract: args.output_contract } : {}),
    ...(typeof args.output_schema === 'object' && args.output_schema !== null
      ? { output_schema: args.output_schema as Record<string, unknown> }
      : {}),
    ...(typeof args.template === 'string' ? { template: args.template } : {}),
  };
}

/** A `spawned` record for `handle`, acting for the caller's principal one hop deeper than the caller. */
export function buildRecord(
  handle: string,
  caller: ToolCaller,
  args: Args,
  verdict: Passed,
  config: Readonly<Config>,
  now: number,
): SubagentRecord {
  const spec = buildSpec(args, verdict, config);
  return {
    handle,
    instruction: spec.instruction,
    mode: verdict.mode,
    status: 'spawned',
    attempt: 1,
    result: null,
    error: null,
    requested_by: {
      ctx: caller.conversation,
      principal: caller.principal,
      event: caller.call?.split('#')[0] ?? null,
      subagent: caller.subagent?.handle ?? null,
      depth: (caller.subagent?.depth ?? 0) + 1,
    },
    call_key: caller.call ?? null,
    tokens: { input_tokens: 0, output_tokens: 0 },
    runs: 0,
    created: now,
    updated: now,
    spec,
  };
}
