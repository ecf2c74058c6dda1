// Project instruction files (agent.instruction_files, e.g. AGENTS.md): read once when the supervisor starts into
// the stable "## Instruction" section; a file that changes later reaches each conversation as a [note] on its next
// turn, so the cached prompt prefix never changes under a running agent (reference §8.2 cache contract).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describeError } from '../errors.js';
import type { Logger } from '../obs/log.js';

interface FileState {
  path: string;
  /** The text the instruction section holds (read at start); null when the file could not be read then. */
  text: string | null;
  hash: string | null;
}

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex');

export class InstructionFiles {
  private files: FileState[];
  /** Conversation → path → the hash of the version it was last told about in a note. */
  private readonly noted = new Map<string, Map<string, string | null>>();

  private paths: readonly string[];

  /** `list` is read at each use: a reload that changes it has the section read again, as at start. */
  constructor(
    private readonly list: () => readonly string[],
    private readonly log: Logger,
  ) {
    this.paths = list();
    this.files = this.readAll(this.paths);
  }

  /** The files in force; a changed list (a reload, interfaces §3.6) is read anew and nobody counts as told. */
  private current(): FileState[] {
    const paths = this.list();
    if (paths.join('\n') !== this.paths.join('\n')) {
      this.paths = paths;
      this.files = this.readAll(paths);
      this.noted.clear();
    }
    return this.files;
  }

  private readAll(paths: readonly string[]): FileState[] {
    return paths.map((path) => {
      const text = this.read(path, 'start');
      return { path, text, hash: text === null ? null : hashOf(text) };
    });
  }

  /** The files' text for "## Instruction", each under its own `### <name>` heading; '' when none was read. */
  get text(): string {
    return this.current()
      .filter((f) => f.text !== null && f.text.trim() !== '')
      .map((f) => `### ${basename(f.path)}\n${(f.text ?? '').trim()}`)
      .join('\n\n');
  }

  /**
   * Notes for `ctx` about files whose text differs from the start-up version (and from what `ctx` was last told):
   * the new text, which supersedes the version in the instructions. Re-reads every file; small by nature. Nothing
   * counts as told until `told()` is called (the turn that carries the notes started).
   */
  changes(ctx: string): { notes: string[]; told: () => void } {
    const notes: string[] = [];
    const seen = this.noted.get(ctx);
    const now = new Map<string, string | null>();
    for (const file of this.current()) {
      const text = this.read(file.path, 'turn');
      const hash = text === null ? null : hashOf(text);
      const told = seen?.has(file.path) ? seen.get(file.path) : file.hash;
      if (hash === told) continue;
      now.set(file.path, hash);
      const name = basename(file.path);
      notes.push(
        text === null
          ? `instruction file ${name} was removed; disregard its section of your instructions.`
          : `instruction file ${name} changed; this text replaces its section of your instructions:\n${text.trim()}`,
      );
    }
    const told = (): void => {
      if (now.size === 0) return;
      const merged = new Map(this.noted.get(ctx) ?? []);
      for (const [path, hash] of now) merged.set(path, hash);
      this.noted.set(ctx, merged);
    };
    return { notes, told };
  }

  private read(path: string, when: 'start' | 'turn'): string | null {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      if (when === 'start') this.log.warn('instruction.file', { path, err: describeError(err) });
      return null;
    }
  }
}
