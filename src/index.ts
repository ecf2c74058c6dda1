// The package's public API: explicit named exports only. test/unit/package/apiReport.test.ts freezes what this
// file's declarations expose (api/agentd.api.md); a change to it is a deliberate change of that report.
export {
  type Agent,
  type CreateAgentOptions,
  createAgent,
  type RunOptions,
  type SendOptions,
  type ServeOptions,
} from './agent.js';
export type { AgentConfigSources, McpServerOption } from './agentOptions.js';
export { EXIT, exitCodeForOutcome, exitCodeForStatus } from './cli/exitCodes.js';
export { compileConfig } from './config/compile.js';
export type { Config, ConfigFlags, ConfigSources } from './config/types.js';
export type { InboxOutcome } from './domain/inbox.js';
export type { RunEvent, RunEventType, RunResult } from './domain/runEvent.js';
export type { AcceptedMessage, Producer, ProducerContext, ProducerMessage } from './embeddedProducer.js';
export { DaemonError, type DaemonErrorCode } from './errors.js';
export { createLogger, type Logger } from './obs/log.js';
export type { Usage } from './protocol/messages.js';
export {
  FINISH_STATUSES,
  type FinishStatus,
  TURN_ERROR_KINDS,
  TURN_STATUSES,
  type TurnErrorKind,
  type TurnStatus,
} from './protocol/status.js';
export type { RunHandle } from './runHandle.js';
export type { CodeTool, CodeToolContext } from './tools/codeTools.js';
export { defineTool, type Tool, type ToolDefinition, type ToolInput } from './tools/defineTool.js';
