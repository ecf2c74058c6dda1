// What a turn is launched with: the volatile notes at the transcript's tail (the date, changed instruction files),
// then the snapshot — system prompt, route, tools — and the events that say how it was built (reference §5.2, §8).
import type { Config } from '../config/types.js';
import type { InstructionFiles } from '../context/instructionFiles.js';
import type { SkillBook } from '../context/skillBook.js';
import { sliceConversation } from '../context/slice.js';
import { type PromptProblem, renderPrompt } from '../context/systemPrompt.js';
import { dateNote } from '../context/volatileNotes.js';
import type { Conversation } from '../domain/conversation.js';
import { humanChannelOf } from '../domain/humanChannel.js';
import type { TurnJob } from '../domain/job.js';
import type { WorkflowDef } from '../domain/workflow.js';
import { specForJob, specForModel } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import { type IntelligenceSpec, PROTOCOL_VERSION, type SpawnPayload, type Telemetry } from '../protocol/frames.js';
import type { Msg } from '../protocol/messages.js';
import { templatesSection } from '../subagents/templates.js';
import {
  grantedInternalDefs,
  internalContract,
  internalFamilies,
  internalToolDefs,
  isReadOnlyInternal,
} from '../tools/internalContracts.js';
import { keptFamilies, planOffer } from '../tools/onDemand.js';
import type { ToolSurface, TurnJudging } from '../tools/surface.js';
import { familyFacts, usableInTurn } from '../tools/toolFamilies.js';
import type { WorkPorts } from '../tools/toolOutcome.js';
import type { ToolPlan } from '../tools/toolPlan.js';
import { stepTurnPayload } from './stepTurnSpec.js';
import type { TaskHooks } from './supervisorOptions.js';

export interface SnapshotDeps {
  config: Readonly<Config>;
  log: Logger;
  now: () => number;
  /** The first memory keys, as of the store's last change (the snapshot is built inside the tick). */
  memoryKeys: () => string[];
  tools: ToolSurface | undefined;
  skills: SkillBook;
  instructions: InstructionFiles;
  /** Who a person is asked through (the A2A listener's tasks) and the producers' ports (the workflow desk). */
  reach?:
    | {
        tasks?: Pick<TaskHooks, 'humanChannel' | 'humanChannelFor'> | undefined;
        ports?: WorkPorts | undefined;
      }
    | undefined;
}

/** The workflows a turn may run (configured and created ones), or none when no workflow desk is plugged in. */
function workflowDefs(ports: WorkPorts | undefined): WorkflowDef[] {
  const desk = ports?.port('workflows')?.();
  return desk ? [...desk.definitions().values()] : [];
}

/**
 * A turn's snapshot: the payload, and the notes it was built with at the transcript's tail (today's date once a
 * day, each changed instruction file). The conversation is untouched: the fold appends `notes` before the turn's
 * delta, and `told()` records the instruction changes as told once the turn started.
 */
export interface TurnSnapshot {
  payload: SpawnPayload;
  notes: Msg[];
  told: () => void;
  /** What the turn's judged calls go by, captured with its plan; null without a tool surface. */
  judging: TurnJudging | null;
}

/** The notes a turn needs at the tail, and what records the instruction changes among them as told. */
function volatileNotes(deps: SnapshotDeps, conv: Conversation): { notes: Msg[]; told: () => void } {
  const now = deps.now();
  const changes = deps.instructions.changes(conv.id);
  const texts = [dateNote(conv.messages, now), ...changes.notes].filter((n) => n !== null);
  return { notes: texts.map((text) => ({ role: 'note' as const, text, ts: now })), told: changes.told };
}

/** The snapshot of `job`'s turn; throws when it cannot be built (the caller folds a failure). Pure of `conv`. */
export function snapshotPayload(deps: SnapshotDeps, job: TurnJob, conv: Conversation, turnId: string): TurnSnapshot {
  const { config, log, tools } = deps;
  const { notes, told } = volatileNotes(deps, conv);
  // The turn reads the notes at the tail of its slice; the conversation gets them at the fold.
  const view: Conversation = { ...conv, messages: [...conv.messages, ...notes] };
  const instruction = [config.agent.instruction.trim(), deps.instructions.text].filter((s) => s !== '').join('\n\n');
  const build = buildTurnPayload({
    config,
    conversation: view,
    turnId,
    eventId: job.event.id,
    plan: tools?.plan(),
    memoryKeys: deps.memoryKeys(),
    instruction,
    extra: job.prep?.knowledge ?? '',
    skills: [deps.skills.section(conv), templatesSection(config.subagents)].filter((s) => s !== '').join('\n\n'),
    route: job.prep?.route ?? null,
    mode: job.event.payload.mode ?? 'execute',
    principal: job.principal,
    humanChannel: humanChannelOf(deps.reach?.tasks, job.event),
    workflows: workflowDefs(deps.reach?.ports),
  });
  for (const problem of build.problems) log.warn(problem.event, { ctx: job.ctx, err: problem.err });
  const { model } = build;
  if (model.via === 'route') log.info('turn.routed', { ctx: job.ctx, route: model.route, model: model.spec.model });
  if (model.via === 'route_removed') log.warn('turn.route_removed', { ctx: job.ctx, route: model.route });
  const step = job.event.payload.step;
  // A workflow step's own settings narrow the turn before its servers are chosen from what it may still call.
  const ownPrompt = step !== undefined && (step.kind === 'think' || step.system !== undefined);
  const bodies = ownPrompt ? deps.skills.section(conv, true) : '';
  const payload = step ? stepTurnPayload(build.payload, step, config.agent.name, bodies) : build.payload;
  if (tools) {
    payload.mcp_servers = tools.serverSpecs(payload.turn.mcp_routes);
    payload.code_tools_module = tools.codeToolsModule;
    payload.turn.gated = tools.gatedCodeTools();
  }
  return { payload, notes, told, judging: tools?.judging() ?? null };
}

// Builds a turn's snapshot (reference §10.1 "Root turn launch"): the spawn payload a worker reads first, the
// system prompt (§8) and the model a route chose (§5.2). Pure: config, conversation and tool defs in, payload out.
export interface TurnBuildInput {
  config: Readonly<Config>;
  conversation: Conversation;
  turnId: string;
  /** The inbox event the turn answers: its MCP calls are keyed and journaled by it (interfaces reference §4.4). */
  eventId?: string;
  /** The registry's plan for this turn; without one the turn gets every internal tool and nothing else. */
  plan: ToolPlan | undefined;
  memoryKeys: string[];
  /** agent.instruction plus the instruction files' text. Default agent.instruction. */
  instruction?: string;
  /** The per-turn slot (the knowledge block). */
  extra?: string;
  /** The skills section (catalogue, then loaded bodies). */
  skills?: string;
  /** The route preflight chose for this message, if any. */
  route?: string | null;
  /** The mode captured when the message was accepted (default execute). */
  mode?: 'plan' | 'execute';
  /** Whom the turn acts for: tools only the operator may call are left out of other principals' turns. */
  principal?: string | null;
  /** A person can be asked now: ask_human is shown (as it is with `agent.ask_human_fallback: wait`). */
  humanChannel?: boolean;
  /** The defined workflows; listed in the prompt when the turn may call workflow.run. */
  workflows?: readonly WorkflowDef[];
}

/** The reminder a plan-mode turn reads last (seed 003: plan mode is one of the turn's reminders). */
const PLAN_MODE_NOTE =
  'Plan mode: investigate with read-only tools only and change nothing. End the turn with a complete proposal: ' +
  'what you would do, step by step, and why. Tools that could change something return an error in this mode; ' +
  'the caller leaves plan mode when they accept the proposal.';

/** Plan mode's extra fields of the turn spec: the tools it may run and its reminder after the transcript. */
function planModeSpec(input: TurnBuildInput, messages: SpawnPayload['turn']['messages']) {
  if (input.mode !== 'plan') return { messages };
  const tools =
    input.plan?.read_only ?? internalToolDefs().flatMap((t) => (isReadOnlyInternal(t.name) ? [t.name] : []));
  const read_only = [...new Set([...tools, ...input.config.security.read_only_tools])];
  const note = { role: 'note' as const, text: PLAN_MODE_NOTE, ts: 0 };
  return { mode: 'plan' as const, read_only, messages: [...messages, note] };
}

/** Which model a turn runs on: roles.turn, or a chosen route that the current config still declares. */
export type TurnModel =
  | { spec: IntelligenceSpec; via: 'role' }
  | { spec: IntelligenceSpec; via: 'route'; route: string }
  | { spec: IntelligenceSpec; via: 'route_removed'; route: string };

/** Resolves the turn's model (reference §5.2): a route a reload removed falls back to roles.turn. */
export function turnModel(config: Readonly<Config>, route: string | null | undefined): TurnModel {
  if (route === null || route === undefined) return { spec: specForJob(config, 'turn'), via: 'role' };
  const declared = Object.hasOwn(config.intelligence.routes, route) && Object.hasOwn(config.intelligence.models, route);
  if (!declared) return { spec: specForJob(config, 'turn'), via: 'route_removed', route };
  return { spec: specForModel(config, route), via: 'route', route };
}

/** A turn's spawn payload, how its model was chosen, and any problem rendering its system prompt. */
export interface TurnBuild {
  payload: SpawnPayload;
  model: TurnModel;
  problems: PromptProblem[];
}

/**
 * A child's telemetry. With tracing on it names the endpoint; the child table sets its traceparent at spawn
 * (obs/childTraces.ts), or drops the trace context of a child with no parent span in reach (reference §3.4).
 */
export function telemetry(config: Readonly<Config>, agentPath: string): Telemetry {
  return {
    instance: config.agent.name,
    agent_path: agentPath,
    log_level: config.observability.log_level,
    log_content: config.observability.log_content,
    ...(config.observability.otlp_endpoint === null
      ? {}
      : { trace: { traceparent: '', endpoint: config.observability.otlp_endpoint } }),
  };
}

/** The spawn payload for a conversation turn. */
export function buildTurnPayload(input: TurnBuildInput): TurnBuild {
  const { config, plan } = input;
  const turn = {
    principal: input.principal ?? null,
    goal: (input.conversation.controls?.goal ?? null) !== null,
    askHuman: input.humanChannel === true || config.agent.ask_human_fallback === 'wait',
  };
  const all = plan?.tools ?? grantedInternalDefs(familyFacts(config));
  const keep = keptFamilies({
    messages: input.conversation.messages,
    goal: turn.goal,
    plan: (input.conversation.plan ?? null) !== null,
    memoryKeys: input.memoryKeys.length > 0,
  });
  const offer = planOffer(
    all.filter((t) => usableInTurn(t.name, turn)),
    config.agent.tools.on_demand,
    keep,
  );
  const internal = (plan?.internal ?? all.map((t) => t.name)).filter((name) => usableInTurn(name, turn));
  const prompt = renderPrompt(
    {
      instance: config.agent.name,
      instruction: input.instruction ?? config.agent.instruction,
      internalFamilies: internalFamilies(internal.filter((name) => internalContract(name) !== undefined)),
      memoryKeys: input.memoryKeys,
      workflows: internal.includes('workflow.run') ? (input.workflows ?? []) : [],
      extra: input.extra ?? '',
      skills: input.skills ?? '',
    },
    config.context.template,
  );
  const model = turnModel(config, input.route);
  const payload = turnPayload(input, prompt.text, model.spec, offer.tools, internal);
  if (offer.more !== undefined) payload.turn.more = offer.more;
  return { payload, model, problems: prompt.problems };
}

function turnPayload(
  input: TurnBuildInput,
  system: string,
  spec: IntelligenceSpec,
  tools: SpawnPayload['turn']['tools'],
  internal: string[],
): SpawnPayload {
  const { config, conversation, turnId, plan } = input;
  return {
    version: PROTOCOL_VERSION,
    intelligence: spec,
    mcp_servers: [],
    code_tools_module: null,
    limits: {
      max_steps: config.limits.run.steps,
      max_tokens: config.limits.run.tokens,
      deadline_ms: Math.max(config.limits.run.deadline, 1000),
    },
    telemetry: telemetry(config, `turn/${conversation.id}`),
    turn: {
      kind: 'turn',
      system,
      tools,
      internal,
      mcp_routes: plan?.mcp_routes ?? {},
      code_tools: plan?.code ?? [],
      mcp_call_timeout_ms: config.mcp.call_timeout,
      max_rounds: 0,
      budget_admission: false,
      idempotency_prefix: `${config.agent.name}/${conversation.id}`,
      ...(input.eventId ? { journal_scope: `${config.agent.name}/${conversation.id}#${input.eventId}.` } : {}),
      tool_meta: { 'agent/ctx': conversation.id, 'agent/instance': config.agent.name },
      max_tokens_per_call: 0,
      turn_id: turnId,
      ...planModeSpec(input, sliceConversation(conversation)),
    },
  };
}
