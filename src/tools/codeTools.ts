// Code tools: functions an embedding program registers. They run in the worker's own process, which imports the
// module that exports them (`tools`, or the default export) — functions cannot cross a process boundary.
import { pathToFileURL } from 'node:url';

/** A tool implemented in the embedding program. */
export interface CodeTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  /** Returns any JSON value (or a promise of one); a throw becomes a tool error the model sees. */
  run(args: Record<string, unknown>, ctx: CodeToolContext): unknown;
}

export interface CodeToolContext {
  /** Aborts when the turn is cancelled or reaches its deadline. */
  signal: AbortSignal;
  /** The turn's id, e.g. `turn-12`. */
  turnId: string;
}

/** A module path or URL as an importable specifier. */
export function moduleSpecifier(module: string | URL): string {
  if (module instanceof URL) return module.href;
  return /^[a-z]+:/i.test(module) ? module : pathToFileURL(module).href;
}

/** Checks one exported tool; returns the problem, or null. */
function codeToolProblem(tool: unknown): string | null {
  if (typeof tool !== 'object' || tool === null) return 'a code tool must be an object';
  const t = tool as Partial<CodeTool>;
  if (typeof t.name !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(t.name))
    return 'a code tool needs a name of [A-Za-z0-9_.-]';
  if (typeof t.description !== 'string') return `code tool "${t.name}" needs a description`;
  if (typeof t.inputSchema !== 'object' || t.inputSchema === null) return `code tool "${t.name}" needs an inputSchema`;
  if (typeof t.run !== 'function') return `code tool "${t.name}" needs a run function`;
  return null;
}

/** Imports `module` and returns its tools; throws an Error naming the module and the problem. */
export async function loadCodeTools(module: string | URL): Promise<CodeTool[]> {
  const spec = moduleSpecifier(module);
  let exported: { tools?: unknown; default?: unknown };
  try {
    exported = (await import(spec)) as { tools?: unknown; default?: unknown };
  } catch (err) {
    throw new Error(`code tools: cannot import ${spec}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const list = exported.tools ?? exported.default;
  if (!Array.isArray(list)) throw new Error(`code tools: ${spec} exports no \`tools\` array`);
  for (const tool of list) {
    const problem = codeToolProblem(tool);
    if (problem) throw new Error(`code tools: ${spec}: ${problem}`);
  }
  return list as CodeTool[];
}
