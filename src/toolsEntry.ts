// The `agentd/tools` entry: what a code-tools module needs (defineTool and its types) and nothing else. A tools
// module is imported by every worker, so this entry must reach no runtime module: only zod and errors.ts.
export { DaemonError, type DaemonErrorCode } from './errors.js';
export type { CodeTool, CodeToolContext } from './tools/codeTools.js';
export { defineTool, type Tool, type ToolDefinition, type ToolInput } from './tools/defineTool.js';
