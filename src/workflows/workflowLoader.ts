// The workflow document parser for compileConfig, without loading it before a config has a workflow (issue 14):
// the parser imports every node kind, about a fifth of the daemon's own code, which a daemon without workflows
// never runs. compileConfig is synchronous, so the parser is required (node ≥ 20.19 requires an ES module) at the
// first document; on a node that cannot, it is imported up front as before.
import { createRequire } from 'node:module';
import type { WorkflowLoader } from '../config/workflowKeys.js';

type Definitions = typeof import('./definitions.js');

/** The parser: loaded at its first document where node can require ES modules, else now. */
export async function workflowLoader(): Promise<WorkflowLoader> {
  if (!(process.features as { require_module?: boolean }).require_module)
    return (await import('./definitions.js')).loadWorkflow;
  let loaded: Definitions['loadWorkflow'] | null = null;
  return (doc) => {
    loaded ??= (createRequire(import.meta.url)('./definitions.js') as Definitions).loadWorkflow;
    return loaded(doc);
  };
}
