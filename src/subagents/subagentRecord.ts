// A new subagent's record from a gated subagent.run call (reference §1.4 "Payload", §1.6): its spec (what a
// respawn needs, credential-free), its caller one hop deeper, and its limits. Pure.
import { parseDuration } from '../config/duration.js';
import type { Config } from '../config/types.js';
import { isTerminal, type SubagentRecord, type SubagentSpec } from '../domain/subagent.js';
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

/**
 * The MCP servers a child gets: the listed ones that exist, else every configured one (reference §1.4 "Payload"),
 * and never one its calling subagent was not granted (`parent` absent: a turn called).
 */
export function grantedServers(asked: unknown, configured: readonly string[], parent?: SubagentSpec): string[] {
  const listed = strings(asked)?.filter((name) => configured.includes(name)) ?? [...configured];
  return parent?.servers ? listed.filter((name) => parent.servers?.includes(name)) : listed;
}

/** The `tools` grants a nested child must also match: each calling subagent's own, up the chain. */
function inheritedTools(parent: SubagentSpec | undefined): string[][] | undefined {
  if (!parent) return undefined;
  const chain = [...(parent.inherited_tools ?? []), ...(parent.allowed_tools ? [parent.allowed_tools] : [])];
  return chain.length > 0 ? chain : undefined;
}

/**
 * The spec of a run: grants, limits (`limits.run` defaults), priority, seeds and the answer's shape. A nested
 * child stays within its calling subagent's grants (`parent`): its servers and tools are narrowed to the parent's.
 */
export function buildSpec(args: Args, verdict: Passed, config: Readonly<Config>, parent?: SubagentSpec): SubagentSpec {
  const limits = (args.limits as Record<string, unknown> | undefined) ?? {};
  const run = config.limits.run;
  const tools = strings(args.tools);
  const servers =
    args.servers !== undefined || parent?.servers
      ? grantedServers(args.servers, Object.keys(config.mcp.servers), parent)
      : undefined;
  const inherited = inheritedTools(parent);
  const context = Array.isArray(args.context) ? (args.context as SubagentSpec['context']) : [];
  return {
    instruction: String(args.instruction),
    ...(tools ? { allowed_tools: tools } : {}),
    ...(inherited ? { inherited_tools: inherited } : {}),
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
  parent?: SubagentSpec,
): SubagentRecord {
  const spec = buildSpec(args, verdict, config, parent);
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
      ...(caller.workflow ? { run: caller.workflow.run, step: caller.workflow.step } : {}),
    },
    call_key: caller.call ?? null,
    tokens: { input_tokens: 0, output_tokens: 0 },
    runs: 0,
    created: now,
    updated: now,
    spec,
  };
}

/**
 * The key of a subagent's tool call: its handle, the run it belongs to (warm runs finished so far + 1) and the
 * call's index. A respawn replays the same run under the same keys (its nested children are found, not started
 * twice); a later warm run has keys of its own (reference §5 item 2).
 */
export function callKey(record: Pick<SubagentRecord, 'handle' | 'runs'>, index: number): string {
  return `${record.handle}.run${record.runs + 1}#${index}`;
}

/**
 * `runs` for a respawn. A one-shot subagent, or a warm one whose first run never finished, replays that run under
 * its keys (the journal answers the calls it completed); a warm session restarts from its instruction as a new run,
 * numbered past every run keyed before the crash, so no run's keys are used again (reference §1.12, §5 item 2).
 */
export function respawnRuns(record: Pick<SubagentRecord, 'mode' | 'runs' | 'keyed_runs'>): number {
  const keyed = record.keyed_runs ?? record.runs + 1;
  return record.mode === 'warm' && keyed > 1 ? Math.max(record.runs, keyed) : record.runs;
}

/**
 * The record a replayed call started: same key, principal, mode and instruction. A call at the same place with
 * other arguments (the model chose differently on replay) is a new call, not the old child.
 */
export function findByCall(
  records: Iterable<SubagentRecord>,
  caller: Pick<ToolCaller, 'principal'>,
  key: string,
  req: { mode: string; instruction: string },
): SubagentRecord | undefined {
  for (const r of records) {
    const same = r.call_key === key && r.requested_by.principal === caller.principal;
    if (same && r.mode === req.mode && r.instruction === req.instruction) return r;
  }
  return undefined;
}

/** The fields of `subagent.spawn` / `subagent.respawn` (reference §1.4). */
export function spawnFields(record: SubagentRecord, node: number, pid: number, configured: readonly string[]) {
  const { limits, servers, priority } = record.spec;
  return {
    ...{ handle: record.handle, mode: record.mode, node, pid, depth: record.requested_by.depth },
    ...{ attempt: record.attempt, priority, servers: configured.filter((s) => !servers || servers.includes(s)).length },
    ...{ memory_bytes: limits.memory_bytes ?? null, cpu_seconds: limits.cpu_seconds ?? null },
  };
}

/** The live subagents `caller` started: a subagent's by its handle, a turn's by its conversation and event. */
export function countCallerLive(records: Iterable<SubagentRecord>, caller: ToolCaller): number {
  const event = caller.call?.split('#')[0] ?? null;
  let n = 0;
  for (const r of records) {
    if (isTerminal(r.status)) continue;
    const by = r.requested_by;
    if (
      caller.subagent
        ? by.subagent === caller.subagent.handle
        : by.subagent === null && by.ctx === caller.conversation && by.event === event
    )
      n++;
  }
  return n;
}

/** What the gates judge of a `subagent.run` call, with the reference's defaults (§1.4). */
export function runRequestOf(args: Args): {
  instruction: string;
  mode: string;
  limits: Record<string, unknown>;
  priority: string;
} {
  return {
    instruction: typeof args.instruction === 'string' ? args.instruction : '',
    mode: (args.mode as string | undefined) ?? 'sync',
    limits: (args.limits as Record<string, unknown> | undefined) ?? {},
    priority: (args.priority as string | undefined) ?? 'normal',
  };
}
