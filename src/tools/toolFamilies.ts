// Which internal tool families a turn is shown (issue 14 item 5): a family the turn cannot use costs tokens on
// every model call and tempts the model into calls that can only fail, so it is left out. Pure: facts in.
import type { Config } from '../config/types.js';
import { actsForAll } from '../domain/principal.js';

/** What the conditional families need; every other family is always shown (finish and status among them). */
export interface FamilyFacts {
  /** skills.*: `skills.sources` names a server (reference §8.4). */
  skills: boolean;
  /**
   * subagent.*: `subagent.run` can start one (freeform runs, or a template). A depth or breadth limit keeps the
   * tool: its refusal text is part of the contract (producers reference P-2).
   */
  subagents: boolean;
}

/** The facts of an instance's config (the A2A listener as the runtime serves it). */
export function familyFacts(config: Readonly<Config>): FamilyFacts {
  const { subagents } = config;
  return {
    skills: config.skills.sources.length > 0,
    subagents: subagents.allow_freeform || Object.keys(subagents.templates).length > 0,
  };
}

/** Whether a contract of `family` is usable under `facts`. */
export function familyUsable(family: string, facts: FamilyFacts): boolean {
  if (family === 'skills') return facts.skills;
  if (family === 'subagent') return facts.subagents;
  return true;
}

/** What one turn's own tool list depends on beyond the instance's plan. */
export interface TurnFacts {
  /** Whom the turn acts for. */
  principal: string | null;
  /** The conversation has a goal (any status) when the turn launches. */
  goal: boolean;
  /**
   * ask_human can get an answer or wait: a person is reachable now (the A2A listener is up) or
   * `agent.ask_human_fallback` is `wait`. Otherwise the call could only fail at once.
   */
  askHuman: boolean;
}

/**
 * Whether a turn can call internal tool `name`: ask_human only with someone to ask (or leave to wait), goal.set
 * and goal.clear are the operator's (a goal starts turns by itself; reference §3.3), and goal.get, goal.complete
 * and goal.clear act on a goal the conversation has —
 * a goal set in this turn is read, completed or cleared from its next turn on.
 */
export function usableInTurn(name: string, turn: TurnFacts): boolean {
  if (name === 'ask_human') return turn.askHuman;
  if ((name === 'goal.set' || name === 'goal.clear') && !actsForAll(turn.principal)) return false;
  if (name === 'goal.get' || name === 'goal.complete' || name === 'goal.clear') return turn.goal;
  return true;
}
