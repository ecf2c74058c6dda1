// What a turn is launched with: the volatile notes at the transcript's tail (the date, changed instruction files),
// then the snapshot — system prompt, route, tools — and the events that say how it was built (reference §5.2, §8).
import type { Config } from '../config/types.js';
import { appendMessage } from '../context/conversation.js';
import type { InstructionFiles } from '../context/instructionFiles.js';
import type { SkillBook } from '../context/skillBook.js';
import { dateNote } from '../context/volatileNotes.js';
import type { Conversation } from '../domain/conversation.js';
import type { TurnJob } from '../domain/job.js';
import type { Logger } from '../obs/log.js';
import type { SpawnPayload } from '../protocol/frames.js';
import type { ToolSurface } from '../tools/surface.js';
import { buildTurnPayload } from './turnBuild.js';

export interface SnapshotDeps {
  config: Readonly<Config>;
  log: Logger;
  now: () => number;
  /** The first memory keys, as of the store's last change (the snapshot is built inside the tick). */
  memoryKeys: () => string[];
  tools: ToolSurface | undefined;
  skills: SkillBook;
  instructions: InstructionFiles;
  markDirty: (id: string) => void;
}

/** Appends the notes a turn needs at the tail: today's date once a day, and each changed instruction file. */
function appendVolatileNotes(deps: SnapshotDeps, conv: Conversation): void {
  const now = deps.now();
  const notes = [dateNote(conv.messages, now), ...deps.instructions.changes(conv.id)];
  for (const text of notes) if (text !== null) appendMessage(conv, { role: 'note', text, ts: now }, now);
  if (notes.some((n) => n !== null)) deps.markDirty(conv.id);
}

/** The spawn payload of `job`'s turn; throws when the snapshot cannot be built (the caller folds a failure). */
export function snapshotPayload(deps: SnapshotDeps, job: TurnJob, conv: Conversation, turnId: string): SpawnPayload {
  const { config, log, tools } = deps;
  appendVolatileNotes(deps, conv);
  const instruction = [config.agent.instruction.trim(), deps.instructions.text].filter((s) => s !== '').join('\n\n');
  const build = buildTurnPayload({
    config,
    conversation: conv,
    turnId,
    plan: tools?.plan(),
    memoryKeys: deps.memoryKeys(),
    instruction,
    extra: job.prep?.knowledge ?? '',
    skills: deps.skills.section(conv),
    route: job.prep?.route ?? null,
    mode: job.event.payload.mode ?? 'execute',
  });
  for (const problem of build.problems) log.warn(problem.event, { ctx: job.ctx, err: problem.err });
  const { model } = build;
  if (model.via === 'route') log.info('turn.routed', { ctx: job.ctx, route: model.route, model: model.spec.model });
  if (model.via === 'route_removed') log.warn('turn.route_removed', { ctx: job.ctx, route: model.route });
  const payload = build.payload;
  if (tools) {
    payload.mcp_servers = tools.serverSpecs(payload.turn.mcp_routes);
    payload.code_tools_module = tools.codeToolsModule;
    payload.turn.gated = tools.gatedCodeTools();
  }
  return payload;
}
