// The durable transcript entry (reference §1.4 "Msg"), shared by supervisor, worker and store.
// Plain data only.

/** A tool call as the model made it; `arguments` is the parsed JSON (or `{_raw}` when it was not JSON). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export type Msg =
  | { role: 'system'; text: string; ts: number }
  | { role: 'user'; text: string; principal?: string; event?: string; ts: number }
  | { role: 'assistant'; text?: string; tool_calls: ToolCall[]; ts: number }
  | { role: 'tool'; id: string; name: string; content: unknown; is_error: boolean; ts: number }
  | { role: 'note'; text: string; ts: number };

/** A tool the model may call: its name as the runtime knows it (dots allowed) and its input schema. */
export interface ToolDef {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * Token usage as a provider reports it. `input_tokens` is the uncached input only (reference §5.3: Anthropic's
 * `input_tokens`); prompt-cache reads and writes are reported apart and are absent when zero.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's prompt cache (Anthropic `cache_read_input_tokens`). */
  cache_read_tokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic `cache_creation_input_tokens`). */
  cache_write_tokens?: number;
}
