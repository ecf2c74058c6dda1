// A subagent's spawn payload (reference §1.4 "Payload"): the same worker and round loop as a turn, with the tools
// it was granted (servers, the `tools` patterns, code tools, its own internal tools), its limits and its seed
// messages. Pure: the record, the config and the instance's tool plan in, the payload out.
import type { Config } from '../config/types.js';
import type { SubagentRecord } from '../domain/subagent.js';
import { specForJob } from '../intel/models.js';
import { PROTOCOL_VERSION, type SpawnPayload } from '../protocol/frames.js';
import type { Msg, ToolDef } from '../protocol/messages.js';
import { telemetry } from '../supervisor/turnSnapshot.js';
import { internalToolDefs } from '../tools/internalContracts.js';
import { keptFamilies, planOffer } from '../tools/onDemand.js';
import { matchPattern } from '../tools/policy.js';
import type { ToolPlan } from '../tools/toolPlan.js';
import { SUBAGENT_CONTRACTS, SUBAGENT_OWN_TOOLS } from './subagentContracts.js';

const NESTED = SUBAGENT_CONTRACTS.map((c) => c.name);

/** The tools a subagent sees and where each runs. */
export interface SubagentTools {
  tools: ToolDef[];
  internal: string[];
  mcp_routes: Record<string, [string, string]>;
  code: string[];
}

/**
 * The instance plan narrowed for a subagent: MCP tools of the granted servers (all when `servers` is absent;
 * tools a permission policy could match are left out, since nothing would judge them), code tools, its own
 * internal tools (subagent.* only when `nested`), then the `tools` patterns.
 */
export function subagentTools(plan: ToolPlan | undefined, record: SubagentRecord, nested: boolean): SubagentTools {
  const own = new Set([...SUBAGENT_OWN_TOOLS, ...(nested ? NESTED : [])]);
  const { servers, allowed_tools, inherited_tools } = record.spec;
  const grants = [...(inherited_tools ?? []), ...(allowed_tools ? [allowed_tools] : [])];
  const granted = (name: string): boolean => grants.every((grant) => grant.some((p) => matchPattern(p, name)));
  const out: SubagentTools = { tools: [], internal: [], mcp_routes: {}, code: [] };
  const candidates = plan?.tools ?? internalToolDefs();
  const internal = new Set(plan?.internal ?? candidates.map((t) => t.name));
  const judged = new Set(plan?.judged ?? []);
  for (const tool of candidates) {
    const route = plan?.mcp_routes[tool.name];
    let keep = false;
    if (route) keep = !servers || servers.includes(route[0]);
    else if (plan?.code.includes(tool.name)) keep = true;
    else if (internal.has(tool.name) && !judged.has(tool.name)) keep = own.has(tool.name);
    if (!keep || !granted(tool.name)) continue;
    out.tools.push(tool);
    if (route) out.mcp_routes[tool.name] = route;
    else if (plan?.code.includes(tool.name)) out.code.push(tool.name);
    else out.internal.push(tool.name);
  }
  return out;
}

/** The fixed persona, then the output contract when there is one. */
export function subagentSystem(instance: string, contract: string | undefined): string {
  const persona =
    `You are a subagent of ${instance}: a delegated worker with one task. Act with your tools; when the task is ` +
    'done, answer without a tool call (or call finish). If it cannot be done, say so plainly. Be concise.';
  return contract ? `${persona}\n\nOutput contract:\n${contract}` : persona;
}

/** The `context` seeds, then the instruction as the first user message. */
export function seedMessages(record: SubagentRecord, now: number): Msg[] {
  const seeds: Msg[] = record.spec.context.map(({ role, content }) => {
    if (role === 'assistant') return { role: 'assistant', text: content, tool_calls: [], ts: now };
    if (role === 'system') return { role: 'system', text: content, ts: now };
    return { role: 'user', text: content, ts: now };
  });
  return [...seeds, { role: 'user', text: record.instruction, ts: now }];
}

/**
 * The worker's own narrowing, applied to catalogue and dispatch: the `tools` patterns; for a nested child under
 * inherited grants, the names that passed all of them.
 */
function allowedTools(spec: SubagentRecord['spec'], tools: SubagentTools): { allowed_tools?: string[] } {
  if (spec.inherited_tools) return { allowed_tools: tools.tools.map((t) => t.name) };
  return spec.allowed_tools ? { allowed_tools: spec.allowed_tools } : {};
}

/** The payload a subagent's worker reads first; MCP server specs and the code module are the caller's to add. */
export function subagentPayload(config: Readonly<Config>, record: SubagentRecord, tools: SubagentTools, now: number) {
  const { spec, handle } = record;
  const runId = `${handle}.${record.attempt}`;
  // The turn id keys MCP calls (`<prefix>#<turn_id>.<n>`) and their journal: a respawn replays its run under the
  // same keys and the journal answers the calls that run completed (reference §5 item 2).
  const run = record.runs + 1;
  const keyed = `${handle}.run${run}`;
  const prefix = `${config.agent.name}/sub/${handle}`;
  const messages = seedMessages(record, now);
  // Families in agent.tools.on_demand (its nested subagent.*, memory.*) wait behind tools.more, as in a
  // conversation's turn, unless a `tools` grant (its own or inherited) chose the subagent's tools by name.
  const keep = keptFamilies({ messages, goal: false, plan: false, memoryKeys: false });
  const chosen = spec.allowed_tools !== undefined || spec.inherited_tools !== undefined;
  const offer = chosen ? { tools: tools.tools } : planOffer(tools.tools, config.agent.tools.on_demand, keep);
  const payload: SpawnPayload = {
    version: PROTOCOL_VERSION,
    intelligence: specForJob(config, 'turn'),
    mcp_servers: [],
    code_tools_module: null,
    limits: {
      max_steps: spec.limits.max_steps,
      max_tokens: spec.limits.max_tokens,
      deadline_ms: spec.limits.deadline_ms,
    },
    telemetry: telemetry(config, `sub/${handle}`),
    turn: {
      kind: 'turn',
      system: subagentSystem(config.agent.name, spec.output_contract),
      messages,
      tools: offer.tools,
      ...('more' in offer && offer.more ? { more: offer.more } : {}),
      internal: tools.internal,
      mcp_routes: tools.mcp_routes,
      code_tools: tools.code,
      mcp_call_timeout_ms: config.mcp.call_timeout,
      max_rounds: 0,
      budget_admission: true,
      idempotency_prefix: prefix,
      journal_scope: `${prefix}#${keyed}.`,
      tool_meta: { 'agent/run_id': runId, 'agent/ctx': record.requested_by.ctx, 'agent/instance': config.agent.name },
      max_tokens_per_call: 0,
      turn_id: keyed,
      subagent: { handle, warm: record.mode === 'warm', run },
      ...allowedTools(spec, tools),
      ...(spec.output_schema ? { output_schema: spec.output_schema } : {}),
    },
  };
  return payload;
}
