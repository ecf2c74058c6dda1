// Staging (reference §6–§7): before a job reaches the gate, its skill references load, its preflight runs and its
// knowledge is searched, off the reactor's critical path. The job table keeps its conversation busy meanwhile,
// so order holds; this module keeps only the preflight child it started, never the job's state.
import { InstructionFiles } from '../context/instructionFiles.js';
import { SkillBook, skillHost } from '../context/skillBook.js';
import { parseSkillReferences } from '../context/skills.js';
import type { Conversation } from '../domain/conversation.js';
import type { TurnJob } from '../domain/job.js';
import { describeError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { ToolSurface } from '../tools/surface.js';
import type { SkillHost } from '../tools/toolOutcome.js';
import { knowledgeArgs, renderKnowledge } from './knowledge.js';
import { type PreflightDeps, runPreflight } from './preflight.js';
import { needsPreflight } from './preflightRule.js';

/** Cap on the knowledge search, so a hung server cannot hold a message for long. */
const KNOWLEDGE_TIMEOUT_MS = 60_000;

export interface StagingDeps extends Omit<PreflightDeps, 'skills'> {
  store: Store;
  /** The first memory keys (the snapshot's list). */
  memoryKeys: () => string[];
  tools: ToolSurface | undefined;
  /** Whether the job is still staging (a cancel or a drain may have ended it meanwhile). */
  staging: (eventId: string) => boolean;
  /** Staging ended: `reply` answers the job without a turn (a status or clarify verdict), null sends it on. */
  finished: (job: TurnJob, reply: string | null) => void;
  /** Records a conversation's loaded skills (the conversation book). */
  setSkills: (conv: Conversation, names: readonly string[]) => void;
}

/** What a turn's snapshot reads besides the job and its conversation; the launcher builds it from this. */
export type SnapshotParts = Pick<StagingDeps, 'config' | 'log' | 'now' | 'memoryKeys' | 'tools'> & {
  skills: SkillBook;
  instructions: InstructionFiles;
};

/**
 * Staging, and what a turn is prepared from: the skill book and the instruction files it and the snapshot share.
 */
export class Staging {
  /** The preflight think child's turn id of each staged job that has one running. */
  private readonly preflights = new Map<string, string>();
  private readonly deps: StagingDeps & { skills: SkillBook };
  /** Shared with the turn's snapshot: the skill book and the instruction files. */
  readonly snapshotParts: SnapshotParts;

  constructor(deps: StagingDeps) {
    const skills = new SkillBook({ config: deps.config, log: deps.log, tools: deps.tools, setSkills: deps.setSkills });
    this.deps = { ...deps, skills };
    const instructions = new InstructionFiles(() => deps.config.agent.instruction_files, deps.log);
    this.snapshotParts = { ...deps, skills, instructions };
  }

  /** skills.* for internal tools, or undefined without skill sources. */
  skillHost(open: (id: string) => Conversation): SkillHost | undefined {
    return this.deps.config.skills.sources.length > 0 ? skillHost(this.deps.skills, open) : undefined;
  }

  /** Whether a job that has not been staged yet has anything to stage. */
  wants(job: TurnJob, conv: Conversation): boolean {
    if (job.prep !== undefined) return false;
    const step = job.event.payload.step;
    if ((step?.skills?.length ?? 0) > 0) return true;
    // A think step's turn answers its own prompt: no preflight, knowledge or skill references (reference §2.8).
    if (step?.kind === 'think') return false;
    const { config, skills } = this.deps;
    return (
      needsPreflight(job.text, conv.plan, config.agent.preflight) ||
      this.knowledgeRoute(job) !== null ||
      (skills.catalogue().length > 0 && parseSkillReferences(job.text, config.skills.reference_prefix).length > 0) ||
      skills.missingBodies(conv).length > 0
    );
  }

  /** Stages the job; `finished` reports what staging found (nothing when the job stopped staging meanwhile). */
  start(job: TurnJob, conv: Conversation): void {
    job.prep = { route: null, knowledge: '' };
    void this.run(job, conv)
      .catch((err: unknown) => {
        this.deps.log.error('loop.error', { ctx: job.ctx, err: `staging: ${describeError(err)}` });
        return null;
      })
      .then((reply) => {
        this.preflights.delete(job.event.id);
        if (this.deps.staging(job.event.id)) this.deps.finished(job, reply);
      });
  }

  /** The job stopped staging (cancelled, or a drain gave up): its preflight child dies now. */
  stop(eventId: string): void {
    const preflight = this.preflights.get(eventId);
    this.preflights.delete(eventId);
    if (preflight !== undefined) this.deps.thinks.killTurn(preflight);
  }

  /** Skill references, then preflight, then knowledge, then any missing skill bodies; the reply when answered. */
  private async run(job: TurnJob, conv: Conversation): Promise<string | null> {
    const { config, skills, now } = this.deps;
    const prep = job.prep ?? { route: null, knowledge: '' };
    const step = job.event.payload.step;
    await this.stepSkills(conv, step?.skills ?? []);
    if (step?.kind === 'think') return null;
    if (skills.catalogue().length > 0) {
      for (const name of parseSkillReferences(job.text, config.skills.reference_prefix)) {
        const loaded = await skills.load(conv, name, 'reference');
        if (!loaded.ok && !skills.has(name)) {
          const text = `skill.unknown: "${name}" is not in the skill catalogue`;
          this.deps.append(conv, [{ role: 'note', text, ts: now() }]);
        }
      }
    }
    if (needsPreflight(job.text, conv.plan, config.agent.preflight)) {
      const turnId = `preflight-${await this.deps.store.sequences.next('preflight')}`;
      const staging = () => this.deps.staging(job.event.id);
      // A cancel or a drain during that await found no child to kill: start none.
      if (!staging()) return null;
      this.preflights.set(job.event.id, turnId);
      const outcome = await runPreflight(this.deps, job, conv, turnId, staging);
      if (!staging() || outcome.reply !== null) return outcome.reply;
      prep.route = outcome.route;
    }
    prep.knowledge = await this.knowledge(job);
    if (!this.deps.staging(job.event.id)) return null;
    await skills.fetchMissing(conv);
    return null;
  }

  /** A workflow step's `skills`, loaded on its conversation; one that cannot be is noted for the model. */
  private async stepSkills(conv: Conversation, names: readonly string[]): Promise<void> {
    for (const name of names) {
      const loaded = await this.deps.skills.load(conv, name, 'step');
      if (!loaded.ok)
        this.deps.append(conv, [{ role: 'note', text: `skill.unknown: ${loaded.error}`, ts: this.deps.now() }]);
    }
  }

  /** The knowledge.search route when auto-context applies to this job, else null. */
  private knowledgeRoute(job: TurnJob): { server: string; wire: string } | null {
    if (this.deps.config.knowledge.auto_context.on !== 'turn' || job.text.trim() === '') return null;
    return this.deps.tools?.knowledgeRoute() ?? null;
  }

  /** Searches for the message; a failed search or no hits adds nothing (reference §7). */
  private async knowledge(job: TurnJob): Promise<string> {
    const route = this.knowledgeRoute(job);
    if (route === null || !this.deps.tools) return '';
    const { config, log } = this.deps;
    const { top_k, max_bytes } = config.knowledge.auto_context;
    const result = await this.deps.tools.callRoute(route, knowledgeArgs(job.text, top_k), {
      meta: { 'agent/instance': config.agent.name, 'agent/ctx': job.ctx },
      timeoutMs: Math.min(config.mcp.call_timeout, KNOWLEDGE_TIMEOUT_MS),
    });
    if (result.is_error) {
      log.warn('knowledge.auto_context', { ctx: job.ctx, hit: false, err: String(result.result) });
      return '';
    }
    const block = renderKnowledge(result.result, max_bytes);
    log.info('knowledge.auto_context', { ctx: job.ctx, hit: block.hits > 0, hits: block.hits, bytes: block.bytes });
    return block.text;
  }
}
