// createAgent's code tools: which of the tools module's exports the model is offered. `tools` names a subset of
// the module's tools (the worker imports the module, so a tool it does not export could never run there).
import { DaemonError } from './errors.js';
import { type CodeTool, loadCodeTools, moduleSpecifier } from './tools/codeTools.js';
import type { CodeToolDef } from './tools/surface.js';

/** The code-tool options of createAgent. */
export interface CodeToolOptions {
  tools?: CodeTool[];
  toolsModule?: string | URL;
}

/** What the tool registry gets: the definitions the model is offered and the module every worker imports. */
export interface ChosenCodeTools {
  defs: CodeToolDef[];
  module: string;
}

/**
 * The registry's view of the code tools, checked against what the worker will import. `tools` omitted or `[]`
 * means no subset: every tool the module exports (an empty list never hides the module's tools); without a
 * module, `[]` is no code tools at all. Throws `usage_invalid` for tools without a module or not exported by it.
 */
export async function resolveCodeTools(opts: CodeToolOptions): Promise<ChosenCodeTools | undefined> {
  const subset = opts.tools?.length ? opts.tools : null;
  if (opts.toolsModule === undefined) {
    if (subset === null) return undefined;
    throw new DaemonError('usage_invalid', 'createAgent: `tools` need `toolsModule`, the module that exports them');
  }
  const module = opts.toolsModule;
  const exported = await loadCodeTools(module).catch((err: unknown) => {
    throw new DaemonError('usage_invalid', `createAgent: ${err instanceof Error ? err.message : String(err)}`);
  });
  const names = new Set(exported.map((t) => t.name));
  const missing = subset?.find((tool) => !names.has(tool.name));
  if (missing) {
    throw new DaemonError('usage_invalid', `createAgent: tool "${missing.name}" is not exported by ${String(module)}`);
  }
  const defs = (subset ?? exported).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema,
  }));
  return { defs, module: moduleSpecifier(module) };
}
