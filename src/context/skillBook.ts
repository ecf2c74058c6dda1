// Skills (reference §8.4): the catalogue the skills.sources servers list, the bodies fetched from them (cached),
// and loading and unloading on a conversation under skills.max_loaded. The supervisor owns it; tools call in.
import { createHash } from 'node:crypto';
import type { Config } from '../config/types.js';
import type { Conversation } from '../domain/conversation.js';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';
import type { McpSkillInfo } from '../tools/mcp/mcpConnection.js';
import type { ToolSurface } from '../tools/surface.js';
import type { SkillHost } from '../tools/toolOutcome.js';
import { capBody, planSkillLoad, renderSkills, type SkillEntry } from './skills.js';

/** How long one skill body fetch may take. */
const READ_TIMEOUT_MS = 30_000;

export type SkillLoad = { ok: true; name: string; body: string; already: boolean } | { ok: false; error: string };

export class SkillBook {
  private readonly entries = new Map<string, { server: string; info: McpSkillInfo }>();
  private readonly bodies = new Map<string, string>();

  constructor(
    private readonly deps: {
      config: Readonly<Config>;
      log: Logger;
      tools: Pick<ToolSurface, 'skills' | 'readSkill'> | undefined;
      /** Records the conversation's loaded skills (the conversation book). */
      setSkills: (conv: Conversation, names: readonly string[]) => void;
    },
  ) {
    // The first source (in skills.sources order) that lists a name provides it.
    const listings = deps.tools?.skills() ?? new Map<string, readonly McpSkillInfo[]>();
    for (const server of deps.config.skills.sources) {
      for (const info of listings.get(server) ?? []) {
        if (!this.entries.has(info.name)) this.entries.set(info.name, { server, info });
      }
    }
  }

  /** The catalogue, in listing order. */
  catalogue(): SkillEntry[] {
    return [...this.entries.values()].map(({ info }) => ({ name: info.name, description: info.description }));
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Loaded skills of `conv` whose body is not fetched yet (after a restart). */
  missingBodies(conv: Conversation): string[] {
    return (conv.skills ?? []).filter((name) => this.entries.has(name) && !this.bodies.has(name));
  }

  /** Fetches the bodies `missingBodies` names; a failure leaves that body out of the prompt. */
  async fetchMissing(conv: Conversation): Promise<void> {
    await Promise.all(this.missingBodies(conv).map((name) => this.body(name).catch(() => undefined)));
  }

  /** The prompt's skills section for `conv`: the catalogue (unless `bodiesOnly`), then the bodies loaded on it. */
  section(conv: Conversation, bodiesOnly = false): string {
    const loaded = (conv.skills ?? []).flatMap((name) => {
      const body = this.bodies.get(name);
      return body === undefined ? [] : [{ name, body }];
    });
    return renderSkills(bodiesOnly ? [] : this.catalogue(), loaded, this.deps.config.skills.reference_prefix);
  }

  /** Loads `name` on `conv` (reason: `reference`, `preflight`, `tool`); events say what happened. */
  async load(conv: Conversation, name: string, reason: string): Promise<SkillLoad> {
    const { log, config } = this.deps;
    if (!this.entries.has(name)) {
      log.info('skill.unknown', { ctx: conv.id, skill: name, reason });
      return { ok: false, error: `"${name}" is not in the skill catalogue` };
    }
    const plan = () => planSkillLoad(conv.skills ?? [], name, config.skills.max_loaded);
    if (plan().kind !== 'refused') {
      try {
        await this.body(name);
      } catch (err) {
        return { ok: false, error: `"${name}" could not be read: ${describeError(err)}` };
      }
    }
    // Planned after the fetch: the conversation may have changed while the body was on its way.
    const decision = plan();
    if (decision.kind === 'refused') {
      log.warn('skill.load.refused', { ctx: conv.id, skill: name, reason: decision.reason });
      return { ok: false, error: decision.reason };
    }
    const body = this.bodies.get(name) ?? '';
    if (decision.kind === 'load') {
      this.deps.setSkills(conv, [...(conv.skills ?? []), name]);
      log.info('skill.loaded', { ctx: conv.id, skill: name, reason, bytes: body.length });
    }
    return { ok: true, name, body, already: decision.kind === 'already' };
  }

  /** Unloads `name` from `conv`; false when it was not loaded. */
  unload(conv: Conversation, name: string): boolean {
    if (!(conv.skills ?? []).includes(name)) return false;
    this.deps.setSkills(
      conv,
      (conv.skills ?? []).filter((n) => n !== name),
    );
    this.deps.log.info('skill.unloaded', { ctx: conv.id, skill: name });
    return true;
  }

  /** The body of catalogued skill `name`, fetched once and capped at `skills.max_bytes` (a workflow step reads it too). */
  async body(name: string): Promise<string> {
    const cached = this.bodies.get(name);
    if (cached !== undefined) return cached;
    const entry = this.entries.get(name);
    if (!entry || !this.deps.tools) throw new Error('no such skill');
    const raw = await this.deps.tools.readSkill(entry.server, entry.info, READ_TIMEOUT_MS);
    const body = capBody(raw, this.deps.config.skills.max_bytes);
    this.bodies.set(name, body);
    return body;
  }
}

/** skills.* over a SkillBook: each call addresses the caller's conversation. */
export function skillHost(book: SkillBook, open: (id: string) => Conversation): SkillHost {
  return {
    list: (ctx) => ({ skills: book.catalogue(), loaded: [...(open(ctx).skills ?? [])] }),
    load: async (ctx, name) => {
      const loaded = await book.load(open(ctx), name, 'tool');
      if (!loaded.ok) return { result: `skills.load: ${loaded.error}`, is_error: true };
      const hash = createHash('sha256').update(loaded.body).digest('hex').slice(0, 16);
      return { result: { loaded: true, name, hash, body: loaded.body }, is_error: false };
    },
    unload: (ctx, name) => book.unload(open(ctx), name),
  };
}
