// The preflight verdict (reference §6.2–§6.4): the schema a chat model answers, the one decision a decision model
// answers, reading either into a Verdict under the role's confidence, and what a verdict does. Pure.

export const INTENTS = ['chat', 'question', 'status', 'command', 'task', 'steer', 'clarify'] as const;
export type Intent = (typeof INTENTS)[number];
const RISKS = ['low', 'medium', 'high'] as const;
/** A decision model's route answer for "none of the routes": the turn stays on roles.turn. */
const NO_ROUTE = 'none';
/** The plan's goal is the first this many characters of the message. */
const PLAN_GOAL_CHARS = 120;

export interface Verdict {
  intent: Intent;
  needs_plan: boolean;
  plan: Array<{ title: string; detail?: string }>;
  clarifications: string[];
  risk: (typeof RISKS)[number];
  skills: string[];
  /** A declared route alias, or null for roles.turn. */
  route: string | null;
  /** Notes for the turn (a decision model cannot write the plan or the question itself). */
  notes: string[];
}

/** What the preflight is asked about: the declared routes, the skill catalogue, the role's model kind. */
export interface VerdictAsk {
  kind: 'chat' | 'decision';
  /** Route alias → criterion. */
  routes: Readonly<Record<string, string>>;
  /** Skill names in the catalogue. */
  skills: readonly string[];
  /** The preflight role's confidence; null = any answer counts. */
  threshold: number | null;
}

/** How a preflight answer reads: a verdict (or none) and whether a route was dropped for low confidence. */
export interface VerdictReading {
  verdict: Verdict | null;
  routeUnsure: boolean;
  /** Why there is no verdict. */
  reason?: string;
}

const CONFIDENCE = { type: 'number', minimum: 0, maximum: 1 };

/** The verdict schema of a chat model (§6.2), with a route enum when routes exist and confidences when gated. */
export function verdictSchema(ask: VerdictAsk): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    intent: { type: 'string', enum: [...INTENTS] },
    needs_plan: { type: 'boolean' },
    plan: {
      type: 'array',
      items: {
        type: 'object',
        properties: { title: { type: 'string' }, detail: { type: 'string' } },
        required: ['title'],
      },
    },
    clarifications: { type: 'array', items: { type: 'string' } },
    risk: { type: 'string', enum: [...RISKS] },
    tools_needed: { type: 'array', items: { type: 'string' } },
    skills: { type: 'array', items: { type: 'string' } },
  };
  const required = ['intent', 'needs_plan', 'risk'];
  const routes = Object.keys(ask.routes);
  if (routes.length > 0) properties.route = { type: 'string', enum: [...routes, NO_ROUTE] };
  if (ask.threshold !== null) {
    properties.confidence = CONFIDENCE;
    required.push('confidence');
    if (routes.length > 0) {
      properties.route_confidence = CONFIDENCE;
      required.push('route_confidence');
    }
  }
  return { type: 'object', properties, required, additionalProperties: true };
}

function question(choices: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: { choice: { type: 'string', enum: [...choices] }, confidence: CONFIDENCE },
    required: ['choice', 'confidence'],
    additionalProperties: false,
  };
}

/** A decision model's one decision (§6.3): every question a `{choice, confidence}` object. */
export function decisionVerdictSchema(ask: VerdictAsk): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    intent: question(INTENTS),
    needs_plan: question(['yes', 'no']),
    risk: question(RISKS),
  };
  const required = ['intent', 'needs_plan', 'risk'];
  if (ask.skills.length > 0) {
    const each = Object.fromEntries(ask.skills.map((name) => [name, question(['load', 'skip'])]));
    properties.skills = { type: 'object', properties: each, additionalProperties: false };
  }
  if (Object.keys(ask.routes).length > 0) {
    properties.route = question([...Object.keys(ask.routes), NO_ROUTE]);
    required.push('route');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The schema the preflight role's model answers. */
export function preflightSchema(ask: VerdictAsk): Record<string, unknown> {
  return ask.kind === 'decision' ? decisionVerdictSchema(ask) : verdictSchema(ask);
}

/** The preflight system prompt: the triage task, then the routes, the skill catalogue and the current plan. */
export function preflightSystemPrompt(instance: string, ask: VerdictAsk, context: { catalogue: string; plan: string }) {
  const task =
    ask.kind === 'decision'
      ? 'answer every question of the decision about the incoming message'
      : 'classify the intent of the incoming message, decide whether a short working plan is needed (needs_plan ' +
        'and plan items), list clarifying questions if it is ambiguous, rate its risk and name skills from the ' +
        'catalogue that would help. Reply with ONLY one JSON object';
  const lines = [`PREFLIGHT. You triage messages for ${instance}: ${task}.`];
  lines.push(`Intents: ${INTENTS.join(', ')} (status = asks about this agent's own state; clarify = too ambiguous).`);
  const routes = Object.entries(ask.routes);
  if (routes.length > 0) {
    lines.push(`Routes (choose the model that should answer; "${NO_ROUTE}" when no criterion fits):`);
    for (const [alias, criterion] of routes) lines.push(`- ${alias}: ${criterion}`);
  }
  if (ask.threshold !== null) lines.push('Give each answer a confidence from 0 to 1.');
  if (context.catalogue !== '') lines.push(context.catalogue);
  if (context.plan !== '') lines.push(`Current plan:\n${context.plan}`);
  return lines.join('\n');
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];
const below = (confidence: unknown, threshold: number | null): boolean =>
  threshold !== null && !(typeof confidence === 'number' && confidence >= threshold);

function oneOf<T extends string>(value: unknown, options: readonly T[], fallback: T): T {
  return typeof value === 'string' && (options as readonly string[]).includes(value) ? (value as T) : fallback;
}

function planItems(value: unknown): Verdict['plan'] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (!isObj(item) || typeof item.title !== 'string' || item.title.trim() === '') return [];
    return [typeof item.detail === 'string' ? { title: item.title, detail: item.detail } : { title: item.title }];
  });
}

/** A declared route, an unsure one, or none. */
function readRoute(choice: unknown, confidence: unknown, ask: VerdictAsk): { route: string | null; unsure: boolean } {
  if (typeof choice !== 'string' || !Object.hasOwn(ask.routes, choice)) return { route: null, unsure: false };
  if (below(confidence, ask.threshold)) return { route: null, unsure: true };
  return { route: choice, unsure: false };
}

function readChat(value: Obj, ask: VerdictAsk): VerdictReading {
  if (below(value.confidence, ask.threshold)) {
    return { verdict: null, routeUnsure: false, reason: 'the verdict is under the preflight confidence' };
  }
  const { route, unsure } = readRoute(value.route, value.route_confidence, ask);
  const verdict: Verdict = {
    intent: oneOf(value.intent, INTENTS, 'task'),
    needs_plan: value.needs_plan === true,
    plan: planItems(value.plan),
    clarifications: strings(value.clarifications),
    risk: oneOf(value.risk, RISKS, 'medium'),
    skills: strings(value.skills),
    route,
    notes: [],
  };
  return { verdict, routeUnsure: unsure };
}

const PLAN_NOTE = 'preflight: this message needs a working plan; write one with plan.create before you act.';
const CLARIFY_NOTE = 'preflight: this message is ambiguous; ask the user your clarifying question before you act.';

function readDecision(value: Obj, ask: VerdictAsk): VerdictReading {
  const answer = (key: string): Obj => (isObj(value[key]) ? (value[key] as Obj) : {});
  const core = ['intent', 'needs_plan', 'risk'].map(answer);
  if (core.some((a) => typeof a.choice !== 'string' || below(a.confidence, ask.threshold))) {
    return { verdict: null, routeUnsure: false, reason: 'an answer is under the preflight confidence' };
  }
  const [intentA, planA, riskA] = core as [Obj, Obj, Obj];
  const skillAnswers = isObj(value.skills) ? value.skills : {};
  const skills = ask.skills.filter((name) => {
    const a = skillAnswers[name];
    return isObj(a) && a.choice === 'load' && !below(a.confidence, ask.threshold);
  });
  const routeA = answer('route');
  const { route, unsure } = readRoute(routeA.choice, routeA.confidence, ask);
  const intent = oneOf(intentA.choice, INTENTS, 'task');
  const needsPlan = planA.choice === 'yes';
  const notes = [...(needsPlan ? [PLAN_NOTE] : []), ...(intent === 'clarify' ? [CLARIFY_NOTE] : [])];
  const verdict: Verdict = {
    intent,
    needs_plan: needsPlan,
    plan: [],
    clarifications: [],
    risk: oneOf(riskA.choice, RISKS, 'medium'),
    skills,
    route,
    notes,
  };
  return { verdict, routeUnsure: unsure };
}

/** Reads a completed preflight's value; anything that is not an object is no verdict. */
export function readVerdict(value: unknown, ask: VerdictAsk): VerdictReading {
  if (!isObj(value)) return { verdict: null, routeUnsure: false, reason: 'the answer is not an object' };
  return ask.kind === 'decision' ? readDecision(value, ask) : readChat(value, ask);
}

/** What a verdict does to the job (§6.4). */
export type VerdictEffect =
  | { kind: 'status' }
  | { kind: 'reply'; text: string }
  | { kind: 'turn'; seedPlan: { goal: string; items: Verdict['plan'] } | null };

/**
 * `status` answers without a turn; `clarify` with questions asks them back; otherwise the turn runs, with a plan
 * seeded only when the verdict wants one, has items, and the conversation has no plan.
 */
export function verdictEffect(verdict: Verdict, text: string, hasPlan: boolean): VerdictEffect {
  if (verdict.intent === 'status') return { kind: 'status' };
  if (verdict.intent === 'clarify' && verdict.clarifications.length > 0) {
    const lines = verdict.clarifications.map((q) => `- ${q.trim()}`);
    return { kind: 'reply', text: `Before I act, please clarify:\n${lines.join('\n')}` };
  }
  const seed = verdict.needs_plan && verdict.plan.length > 0 && !hasPlan;
  return {
    kind: 'turn',
    seedPlan: seed ? { goal: [...text.trim()].slice(0, PLAN_GOAL_CHARS).join(''), items: verdict.plan } : null,
  };
}
