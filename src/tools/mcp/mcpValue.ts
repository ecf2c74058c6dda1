// The value an MCP tool result stands for (reference §11.5): structuredContent, else the text parsed as JSON,
// else the raw text; `isError` carried. Pure: no SDK import, so the worker can load it without the client.

/** A tool's answer as the transcript stores it; a tool-level problem is a value, never a throw. */
export interface ToolAnswer {
  result: unknown;
  is_error: boolean;
}

/** The parts of an MCP `CallToolResult` the value is made from (the SDK type is structurally compatible). */
export interface CallToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Servers of protocol 2024-10-07 answer `{toolResult}` instead of content. */
  toolResult?: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One content part as text: its text, or `[<type> content]` for images, audio, resources and the like. */
function partText(part: unknown): string {
  if (!isRecord(part)) return '[unknown content]';
  if (part.type === 'text' && typeof part.text === 'string') return part.text;
  return `[${typeof part.type === 'string' ? part.type : 'unknown'} content]`;
}

/** The text of all content parts, joined with "\n". */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map(partText).join('\n');
}

/** JSON when the whole text parses, else the text itself. */
function parsedOrRaw(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

/** The transcript value of one tool result (reference §11.5 value order). */
export function toolValue(result: CallToolResultLike): ToolAnswer {
  const is_error = result.isError === true;
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return { result: result.structuredContent, is_error };
  }
  if (result.content === undefined && result.toolResult !== undefined) return { result: result.toolResult, is_error };
  return { result: parsedOrRaw(contentText(result.content)), is_error };
}

/** Tool arguments as the wire's object: none is `{}`; anything but an object is null (refused). */
export function asArguments(args: unknown): Record<string, unknown> | null {
  if (args === undefined || args === null) return {};
  return typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : null;
}
