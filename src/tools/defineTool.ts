// defineTool: a code tool from a zod object schema. The argument type is inferred from the schema, the JSON Schema
// the model sees is derived from the schema's input side (what the model sends: defaults optional, transforms
// allowed), and the arguments are checked against it (in the worker) before `run` sees them.
import { z } from 'zod';
import { DaemonError } from '../errors.js';
import type { CodeTool, CodeToolContext } from './codeTools.js';

/** A zod object schema (`z.object({...})`, strict or loose alike): a tool's arguments are always an object. */
export type ToolInput = z.ZodObject<z.ZodRawShape, z.core.$ZodObjectConfig>;

export interface ToolDefinition<S extends ToolInput> {
  /** `[A-Za-z0-9_.-]+`, unique among the agent's tools. */
  name: string;
  description: string;
  /** The arguments' schema: `z.object({...})`. */
  input: S;
  /** Gets the parsed arguments (defaults applied, transforms run); returns any JSON value or a promise of one. */
  run(args: z.output<S>, ctx: CodeToolContext): unknown;
}

/** A code tool whose arguments have the type its zod schema infers. */
export interface Tool<S extends ToolInput = ToolInput> extends CodeTool {
  readonly input: S;
}

/** One line naming every argument that failed the schema and why. */
function describeIssues(name: string, error: z.ZodError): string {
  const issues = error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`);
  return `${name}: invalid arguments: ${issues.join('; ')}`;
}

/** The JSON Schema of what the model sends; a schema JSON Schema cannot express is refused here, by name. */
function modelSchema(def: ToolDefinition<ToolInput>): Record<string, unknown> {
  const at = `defineTool "${def.name}"`;
  // Checked by shape, not instanceof: one zod copy or another, an object schema says so in its definition.
  const kind = (def.input as { _zod?: { def?: { type?: unknown } } } | undefined)?._zod?.def?.type;
  if (kind !== 'object') {
    throw new DaemonError('usage_invalid', `${at}: input must be a zod object schema (z.object({...})), not ${kind}`);
  }
  try {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(def.input, { io: 'input' }) as Record<string, unknown>;
    return schema;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new DaemonError('usage_invalid', `${at}: input has no JSON Schema for the model: ${why}`);
  }
}

/**
 * Defines a code tool; export it from the module you pass as createAgent's `toolsModule`. Throws a DaemonError
 * (`usage_invalid`) when `input` is not an object schema or cannot be written as JSON Schema (e.g. `z.date()`).
 */
export function defineTool<S extends ToolInput>(def: ToolDefinition<S>): Tool<S> {
  const inputSchema = modelSchema(def);
  return {
    name: def.name,
    description: def.description,
    input: def.input,
    inputSchema,
    run: (args, ctx) => {
      const parsed = def.input.safeParse(args);
      if (!parsed.success) throw new Error(describeIssues(def.name, parsed.error));
      return def.run(parsed.data, ctx);
    },
  };
}
