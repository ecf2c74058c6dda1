// defineTool: a code tool from a zod schema. The argument type is inferred from the schema, the JSON Schema the
// model sees is derived from it, and the arguments are checked against it (in the worker) before `run` sees them.
import { z } from 'zod';
import type { CodeTool, CodeToolContext } from './codeTools.js';

export interface ToolDefinition<S extends z.ZodType> {
  /** `[A-Za-z0-9_.-]+`, unique among the agent's tools. */
  name: string;
  description: string;
  /** The arguments' schema: an object schema (`z.object({...})`). */
  input: S;
  /** Returns any JSON value (or a promise of one); a throw becomes a tool error the model sees. */
  run(args: z.output<S>, ctx: CodeToolContext): unknown;
}

/** A code tool whose arguments have the type its zod schema infers. */
export interface Tool<S extends z.ZodType = z.ZodType> extends CodeTool {
  readonly input: S;
}

/** One line naming every argument that failed the schema and why. */
function describeIssues(name: string, error: z.ZodError): string {
  const issues = error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`);
  return `${name}: invalid arguments: ${issues.join('; ')}`;
}

/** Defines a code tool; export it from the module you pass as createAgent's `toolsModule`. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool<S> {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(def.input) as Record<string, unknown>;
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
