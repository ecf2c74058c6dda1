// The embedding API: explicit named exports for programs that run agentd as a library.
export { type Agent, type CreateAgentOptions, createAgent, type SendOptions } from './agent.js';

export { EXIT, exitCodeForOutcome, exitCodeForStatus } from './cli/exitCodes.js';
export { compileConfig } from './config/compile.js';
export type { Config, ConfigSources } from './config/types.js';
export type { Conversation } from './domain/conversation.js';
export type { InboxEvent, InboxKind, InboxOutcome } from './domain/inbox.js';
export { DaemonError, type DaemonErrorCode } from './errors.js';
export { createLogger, type Logger } from './obs/log.js';
export type { Msg, ToolCall, ToolDef, Usage } from './protocol/messages.js';
export { TURN_ERROR_KINDS, TURN_STATUSES, type TurnErrorKind, type TurnStatus } from './protocol/status.js';
export type { Producer, ProducerContext, ProducerFactory } from './runtime/producer.js';
export { type Runtime, type RuntimeOptions, startRuntime } from './runtime/startRuntime.js';
export { openStore } from './store/openStore.js';
export type { Store } from './store/store.js';
export { Supervisor, type SupervisorOptions } from './supervisor/supervisor.js';
export type { AcceptInput } from './supervisor/supervisorOptions.js';
export type { CodeTool, CodeToolContext } from './tools/codeTools.js';
export { ToolSurface } from './tools/surface.js';
