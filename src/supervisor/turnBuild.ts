// Builds a turn's snapshot (reference §10.1 "Root turn launch"): the spawn payload a worker reads first.
// Pure: config, conversation and tool defs in, payload out.
import type { Config } from '../config/types.js';
import { sliceConversation } from '../context/slice.js';
import { renderSystemPrompt } from '../context/systemPrompt.js';
import { PROTOCOL_VERSION, type SpawnPayload } from '../protocol/frames.js';
import type { ToolDef } from '../protocol/messages.js';
import type { Conversation } from '../store/store.js';
import { internalFamilies } from '../tools/internalContracts.js';

export interface TurnBuildInput {
  config: Readonly<Config>;
  conversation: Conversation;
  turnId: string;
  tools: ToolDef[];
  memoryKeys: string[];
}

/** The spawn payload for a conversation turn. */
export function buildTurnPayload(input: TurnBuildInput): SpawnPayload {
  const { config, conversation, turnId, tools } = input;
  const internal = tools.map((t) => t.name);
  const system = renderSystemPrompt({
    instance: config.agent.name,
    instruction: config.agent.instruction,
    internalFamilies: internalFamilies(internal),
    memoryKeys: input.memoryKeys,
  });
  return {
    version: PROTOCOL_VERSION,
    intelligence: {
      endpoints: [...config.intelligence.endpoints],
      token: config.intelligence.token,
      model: config.intelligence.model,
      dialect: config.intelligence.dialect,
      headers: Object.entries(config.intelligence.headers),
      timeout_ms: config.intelligence.timeout,
    },
    mcp_servers: [],
    code_tools_module: null,
    limits: {
      max_steps: config.limits.run.steps,
      max_tokens: config.limits.run.tokens,
      deadline_ms: Math.max(config.limits.run.deadline, 1000),
    },
    telemetry: {
      instance: config.agent.name,
      agent_path: `turn/${conversation.id}`,
      log_level: config.observability.log_level,
      log_content: config.observability.log_content,
    },
    turn: {
      kind: 'turn',
      system,
      messages: sliceConversation(conversation),
      tools,
      internal,
      mcp_routes: {},
      max_rounds: 0,
      budget_admission: false,
      idempotency_prefix: `${config.agent.name}/${conversation.id}`,
      tool_meta: { 'agent/ctx': conversation.id, 'agent/instance': config.agent.name },
      max_tokens_per_call: 0,
      turn_id: turnId,
    },
  };
}
