// Builds a turn's snapshot (reference §10.1 "Root turn launch"): the spawn payload a worker reads first.
// Pure: config, conversation and tool defs in, payload out.
import type { Config } from '../config/types.js';
import { sliceConversation } from '../context/slice.js';
import { renderSystemPrompt } from '../context/systemPrompt.js';
import { specForJob } from '../intel/models.js';
import { PROTOCOL_VERSION, type SpawnPayload, type Telemetry } from '../protocol/frames.js';
import type { Conversation } from '../store/store.js';
import {
  internalContract,
  internalFamilies,
  internalToolDefs,
  isReadOnlyInternal,
} from '../tools/internalContracts.js';
import type { ToolPlan } from '../tools/toolPlan.js';

export interface TurnBuildInput {
  config: Readonly<Config>;
  conversation: Conversation;
  turnId: string;
  /** The registry's plan for this turn; without one the turn gets every internal tool and nothing else. */
  plan: ToolPlan | undefined;
  memoryKeys: string[];
  /** The mode captured when the message was accepted (default execute). */
  mode?: 'plan' | 'execute';
}

/** The reminder a plan-mode turn reads last (seed 003: plan mode is one of the turn's reminders). */
export const PLAN_MODE_NOTE =
  'Plan mode: investigate with read-only tools only and change nothing. End the turn with a complete proposal: ' +
  'what you would do, step by step, and why. Tools that could change something return an error in this mode; ' +
  'the caller leaves plan mode when they accept the proposal.';

/** Plan mode's extra fields of the turn spec: the tools it may run and its reminder after the transcript. */
function planModeSpec(input: TurnBuildInput, messages: SpawnPayload['turn']['messages']) {
  if (input.mode !== 'plan') return { messages };
  const tools =
    input.plan?.read_only ?? internalToolDefs().flatMap((t) => (isReadOnlyInternal(t.name) ? [t.name] : []));
  const read_only = [...new Set([...tools, ...input.config.security.read_only_tools])];
  const note = { role: 'note' as const, text: PLAN_MODE_NOTE, ts: 0 };
  return { mode: 'plan' as const, read_only, messages: [...messages, note] };
}

export function telemetry(config: Readonly<Config>, agentPath: string): Telemetry {
  return {
    instance: config.agent.name,
    agent_path: agentPath,
    log_level: config.observability.log_level,
    log_content: config.observability.log_content,
  };
}

/** The spawn payload for a conversation turn. */
export function buildTurnPayload(input: TurnBuildInput): SpawnPayload {
  const { config, conversation, turnId, plan } = input;
  const tools = plan?.tools ?? internalToolDefs();
  const internal = plan?.internal ?? tools.map((t) => t.name);
  const system = renderSystemPrompt({
    instance: config.agent.name,
    instruction: config.agent.instruction,
    internalFamilies: internalFamilies(internal.filter((name) => internalContract(name) !== undefined)),
    memoryKeys: input.memoryKeys,
  });
  return {
    version: PROTOCOL_VERSION,
    intelligence: specForJob(config, 'turn'),
    mcp_servers: [],
    code_tools_module: null,
    limits: {
      max_steps: config.limits.run.steps,
      max_tokens: config.limits.run.tokens,
      deadline_ms: Math.max(config.limits.run.deadline, 1000),
    },
    telemetry: telemetry(config, `turn/${conversation.id}`),
    turn: {
      kind: 'turn',
      system,
      tools,
      internal,
      mcp_routes: plan?.mcp_routes ?? {},
      code_tools: plan?.code ?? [],
      mcp_call_timeout_ms: config.mcp.call_timeout,
      max_rounds: 0,
      budget_admission: false,
      idempotency_prefix: `${config.agent.name}/${conversation.id}`,
      tool_meta: { 'agent/ctx': conversation.id, 'agent/instance': config.agent.name },
      max_tokens_per_call: 0,
      turn_id: turnId,
      ...planModeSpec(input, sliceConversation(conversation)),
    },
  };
}
