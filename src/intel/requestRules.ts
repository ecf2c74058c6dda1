// Request rules (reference §5.3, §12): temperature, reasoning effort and thinking room, the output cap, the
// OpenAI token key, and native vs prompt structured generation. Pure: a spec and a request in, a wire request out.
import type { IntelligenceSpec } from '../protocol/frames.js';
import type { ModelRequest, WireRequest } from './modelRequest.js';

export type Effort = 'low' | 'medium' | 'high';

/** The spec fields the rules read. */
export type RuleSpec = Pick<IntelligenceSpec, 'dialect' | 'family' | 'kind' | 'reasoning' | 'structured_output'>;

/**
 * Thinking room per effort, in tokens: Anthropic's `thinking.budget_tokens`, and on both dialects the amount the
 * output cap is raised by (OpenAI counts reasoning tokens against `max_completion_tokens` too).
 */
export const THINKING_ROOM: Readonly<Record<Effort, number>> = { low: 2048, medium: 8192, high: 24_576 };

const COMPLETION_TOKEN_MODELS = ['gpt-5', 'chatgpt-5', 'o1', 'o3', 'o4'];

/** The line appended to the system text when the schema is asked for in the prompt only. */
export function schemaPromptLine(schema: Record<string, unknown>): string {
  return `Reply with ONLY one JSON object matching this JSON Schema: ${JSON.stringify(schema)}`;
}

/** The configured effort; none configured ⇒ no effort is sent and the cap is not raised. */
function effortOf(spec: Pick<RuleSpec, 'reasoning'>): Effort | undefined {
  return spec.reasoning?.effort ?? undefined;
}

/** A `reasoning`-kind model, or any model with an effort configured: it never gets a temperature. */
function isReasoningModel(spec: Pick<RuleSpec, 'kind' | 'reasoning'>): boolean {
  return spec.kind === 'reasoning' || effortOf(spec) !== undefined;
}

/** The output cap actually sent: `baseCap` raised by the thinking room of the configured effort. */
export function outputCap(spec: Pick<RuleSpec, 'reasoning'>, baseCap: number): number {
  const effort = effortOf(spec);
  return effort === undefined ? baseCap : baseCap + THINKING_ROOM[effort];
}

/** OpenAI: `max_completion_tokens` for gpt-5 / chatgpt-5 / o1 / o3 / o4 names, else `max_tokens`. */
export function usesCompletionTokens(model: string): boolean {
  const lower = model.toLowerCase();
  return COMPLETION_TOKEN_MODELS.some((p) => lower.startsWith(p));
}

/**
 * Anthropic's rules apply: the anthropic dialect, or a Claude model on Bedrock (reference §5.3, §12) — declared
 * `family: claude`, or, with no family declared, an id naming claude (an inference-profile ARN names none).
 */
export function speaksClaude(spec: Pick<RuleSpec, 'dialect' | 'family'>, model: string): boolean {
  if (spec.dialect === 'anthropic') return true;
  if (spec.dialect !== 'bedrock') return false;
  return spec.family == null ? /claude/i.test(model) : spec.family === 'claude';
}

/**
 * Temperature to send: none on anthropic, none to a Claude model on Bedrock, none to a reasoning model, else the
 * requested one or 0.
 */
export function temperatureFor(spec: RuleSpec, requested: number | undefined, model: string): number | undefined {
  if (speaksClaude(spec, model) || isReasoningModel(spec)) return undefined;
  return requested ?? 0;
}

function appendLine(system: string, line: string): string {
  return system.trim() === '' ? line : `${system}\n\n${line}`;
}

/**
 * Applies the request rules. A schema is enforced natively when the provider allows it (`structured_output`
 * is not `prompt`) and the schema is an object schema; otherwise it is asked for in the system text only.
 */
export function planWireRequest(spec: RuleSpec, req: ModelRequest): WireRequest {
  const wire: WireRequest = {
    model: req.model,
    messages: req.messages,
    system: req.system,
    tools: req.tools,
    maxTokens: outputCap(spec, req.maxTokens),
  };
  const temperature = temperatureFor(spec, req.temperature, req.model);
  if (temperature !== undefined) wire.temperature = temperature;
  const effort = effortOf(spec);
  const claude = speaksClaude(spec, req.model);
  if (effort !== undefined && claude) wire.thinkingBudget = THINKING_ROOM[effort];
  else if (effort !== undefined && spec.dialect === 'openai') wire.effort = effort;
  const schema = req.outputSchema;
  if (schema !== undefined) {
    // Other Bedrock models have no response format Converse passes on: the schema goes in the prompt.
    const nativeWire = spec.dialect !== 'bedrock' || claude;
    const native = nativeWire && spec.structured_output !== 'prompt' && schema.type === 'object';
    if (native) wire.outputSchema = schema;
    else wire.system = appendLine(req.system, schemaPromptLine(schema));
  }
  if (req.reasoning !== undefined) wire.reasoning = req.reasoning;
  // Only the OpenAI wire has a cache-routing key; Anthropic marks breakpoints in the body instead.
  if (req.cacheKey && spec.dialect === 'openai') wire.cacheKey = promptCacheKey(req.cacheKey);
  return wire;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const U64 = 0xffffffffffffffffn;

/**
 * OpenAI's `prompt_cache_key` for a scope: calls of one conversation share it, so the provider routes them to the
 * cache holding their common prefix. A digest (FNV-1a, 64 bits): the provider asks for no user data in the key.
 */
export function promptCacheKey(scope: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(scope)) hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & U64;
  return `agentd-${hash.toString(16).padStart(16, '0')}`;
}
