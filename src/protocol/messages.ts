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

/** Token usage as a provider reports it. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
}
