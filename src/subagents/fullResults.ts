// Results over the 8 000-byte cap, kept whole (reference §5 item 24, RFC 0009's store-and-reference): the record
// carries the distilled text and where the rest lies; the whole text goes to the store before the record that
// points to it (the runtime's store commits in call order), and subagent.result reads it back in pages.
import type { SubagentRecord } from '../domain/subagent.js';
import { describeError } from '../errors.js';
import type { SubagentsPort } from '../store/store.js';
import { type ToolOutcome, toolDefer, toolError } from '../tools/toolOutcome.js';
import { distillWhole, pageOf } from './results.js';

export class FullResults {
  constructor(
    private readonly port: SubagentsPort,
    private readonly failed: (handle: string, err: unknown) => void,
  ) {}

  /** Sets the record's distilled `result`; a cut one is stored whole as result `run` of the record. */
  keep(record: SubagentRecord, produced: unknown, run: number): void {
    const { value, whole } = distillWhole(produced);
    record.result = value;
    record.stored_result = whole ? { run, bytes: whole.bytes, shown: whole.shown } : null;
    if (whole) {
      this.port.saveResult(record.handle, { run, body: whole.body }).catch((err) => this.failed(record.handle, err));
    }
  }

  /** subagent.result: a page of the record's stored whole result from `offset`; `run`: the result it expects. */
  read(record: SubagentRecord, offset: number, run: number | null): ToolOutcome {
    const { handle, stored_result: stored } = record;
    if (!stored) return toolError(`subagent "${handle}" has no stored result (its result was not cut)`);
    if (run !== null && run !== stored.run) {
      return toolError(`subagent "${handle}": its stored result is result ${stored.run}, not ${run}`);
    }
    if (offset < 0 || offset > stored.bytes) {
      return toolError(`subagent.result: offset ${offset} is outside the result (${stored.bytes} bytes)`);
    }
    const page = this.port.readResult(handle).then((kept) => {
      if (!kept || kept.run !== stored.run) {
        return { result: `subagent "${handle}": its stored result is gone`, is_error: true };
      }
      const { offset: from, text, next_offset } = pageOf(kept.body, offset);
      const result = { handle, run: kept.run, bytes: stored.bytes, offset: from, text, next_offset };
      return { result, is_error: false };
    });
    return toolDefer(
      page.catch((err: unknown) => ({ result: `subagent.result: ${describeError(err)}`, is_error: true })),
    );
  }
}
