// Preflight (reference §6): one think child on roles.preflight triages a message before its turn, and its verdict
// takes effect — a reply without a turn, a seeded plan, notes, preloaded skills, a route. Never a gate: a child
// that cannot start or fails leaves the message to run with no verdict.
import type { Config } from '../config/types.js';
import { createPlan } from '../context/planOps.js';
import { planProgress, renderPlan } from '../context/render.js';
import type { SkillBook } from '../context/skillBook.js';
import { renderCatalogue } from '../context/skills.js';
import type { Conversation } from '../domain/conversation.js';
import type { ThinkJob, TurnJob } from '../domain/job.js';
import type { Plan } from '../domain/plan.js';
import { specForJob } from '../intel/models.js';
import type { Logger } from '../obs/log.js';
import type { Msg } from '../protocol/messages.js';
import type { ToolResult } from '../tools/toolOutcome.js';
import {
  preflightSchema,
  preflightSystemPrompt,
  readVerdict,
  type Verdict,
  type VerdictAsk,
  verdictEffect,
} from './preflightVerdict.js';

/** The think children preflight uses (supervisor/thinkChildren.ts). */
export interface ThinkRunner {
  run(job: ThinkJob): Promise<ToolResult>;
  killTurn(turnId: string): void;
}

export interface PreflightDeps {
  config: Readonly<Config>;
  log: Logger;
  now: () => number;
  /** Think children (supervisor/thinkChildren.ts): preflight runs one, staging stops it. */
  thinks: ThinkRunner;
  skills: SkillBook;
  /** Replaces a conversation's plan (through the conversation book). */
  setPlan: (conv: Conversation, plan: Plan) => void;
  /** Appends to a conversation (through the conversation book, which writes it at the next checkpoint). */
  append: (conv: Conversation, msgs: Msg[]) => void;
  /** The asker's own view of the instance, for a `status` verdict. */
  statusFor: (principal: string | null) => string;
}

/** A reply that answers the message without a turn, or the route its turn runs on (null = roles.turn). */
export type PreflightOutcome = { reply: string } | { reply: null; route: string | null };

const NO_VERDICT: PreflightOutcome = { reply: null, route: null };

/** Runs the preflight think child for `job` and applies its verdict; never rejects. */
export async function runPreflight(
  deps: PreflightDeps,
  job: TurnJob,
  conv: Conversation,
  turnId: string,
  /** False once the message was cancelled: its verdict then has no effect at all. */
  live: () => boolean = () => true,
): Promise<PreflightOutcome> {
  const { config, log } = deps;
  const spec = specForJob(config, 'preflight');
  const ask: VerdictAsk = {
    kind: spec.kind === 'decision' ? 'decision' : 'chat',
    routes: config.intelligence.routes,
    skills: deps.skills.catalogue().map((s) => s.name),
    threshold: config.intelligence.roles.preflight_confidence,
  };
  const context = {
    catalogue: renderCatalogue(deps.skills.catalogue(), config.skills.reference_prefix),
    plan: conv.plan === null ? '' : renderPlan(conv.plan),
  };
  let spawned = false;
  const answer = await deps.thinks.run({
    purpose: 'preflight',
    ctx: job.ctx,
    parentNode: null,
    system: preflightSystemPrompt(config.agent.name, ask, context),
    messages: [{ role: 'user', text: job.text, ts: deps.now() }],
    schema: preflightSchema(ask),
    turnId,
    eventId: job.event.id,
    onSpawn: (pid) => {
      spawned = true;
      log.info('preflight.start', { ctx: job.ctx, inbox_event: job.event.id, worker_pid: pid, model: spec.model });
    },
  });
  if (!live()) return NO_VERDICT;
  if (answer.is_error) {
    const err = String(answer.result);
    if (spawned) log.warn('preflight.failed', { ctx: job.ctx, status: 'failed', err });
    else log.error('preflight.spawn_fail', { ctx: job.ctx, err });
    return NO_VERDICT;
  }
  const reading = readVerdict(answer.result, ask);
  if (reading.routeUnsure) log.info('preflight.route_unsure', { ctx: job.ctx, inbox_event: job.event.id });
  if (reading.verdict === null) {
    log.info('preflight.failed', { ctx: job.ctx, status: 'no_verdict', err: reading.reason ?? 'no verdict' });
    return NO_VERDICT;
  }
  return applyVerdict(deps, job, conv, reading.verdict);
}

/** The verdict's effects (reference §6.4), in order: a short-circuit reply, the plan, notes, skills, the route. */
async function applyVerdict(
  deps: PreflightDeps,
  job: TurnJob,
  conv: Conversation,
  verdict: Verdict,
): Promise<PreflightOutcome> {
  const { log, config, now } = deps;
  const { intent, needs_plan, risk, skills, route } = verdict;
  log.info('preflight.verdict', { ctx: job.ctx, intent, needs_plan, risk, skills, route });
  const effect = verdictEffect(verdict, job.text, conv.plan !== null);
  if (effect.kind === 'status') return { reply: deps.statusFor(job.principal) };
  if (effect.kind === 'reply') return { reply: effect.text };
  const notes = [...verdict.notes];
  if (effect.seedPlan) {
    const items = effect.seedPlan.items.slice(0, config.context.plan.max_items);
    const made = createPlan(effect.seedPlan.goal, items, now(), config.context.plan.max_items);
    if (made.ok) {
      deps.setPlan(conv, made.plan);
      log.info('plan.updated', { ctx: conv.id, op: 'preflight', progress: planProgress(made.plan) });
    } else notes.push(`preflight plan refused: ${made.error}`);
  }
  deps.append(
    conv,
    notes.map((text) => ({ role: 'note' as const, text, ts: now() })),
  );
  const unknown = skills.filter((name) => !deps.skills.has(name));
  if (unknown.length > 0) log.info('preflight.skills_unknown', { ctx: job.ctx, skills: unknown });
  for (const name of skills.filter((n) => deps.skills.has(n))) await deps.skills.load(conv, name, 'preflight');
  return { reply: null, route };
}
