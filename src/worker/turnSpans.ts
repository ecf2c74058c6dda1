// A worker's spans (reference §3.4), made from its own progress events: a `chat` span per model call (turn.think
// to turn.round, with the GenAI attributes and the call's tokens) and an `execute_tool` span per tool call, all
// under the turn span its spawn frame names. Loaded with the SDK only when the frame carries a trace context.
import { loadTracer, type SpanHandle, settleTracer, type Tracer } from '../obs/tracing.js';
import type { IntelligenceSpec, Telemetry } from '../protocol/frames.js';

/** GenAI `gen_ai.provider.name` by dialect. */
const PROVIDERS: Record<string, string> = { openai: 'openai', anthropic: 'anthropic', bedrock: 'aws.bedrock' };

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export interface TurnSpans {
  /** Every progress event of the turn goes through here. */
  on(event: string, fields: Record<string, unknown>): void;
  /**
   * Ends what is still open (a call the turn never saw answered) and exports the spans, waiting at most
   * `boundMs`; resolves with why the export failed, or null.
   */
  close(boundMs: number): Promise<string | null>;
}

/** The turn's span recorder, or null when the spawn frame carries no trace context. */
export async function turnSpans(telemetry: Telemetry, intel: IntelligenceSpec): Promise<TurnSpans | null> {
  const trace = telemetry.trace;
  if (!trace) return null;
  const tracer = await loadTracer(trace.endpoint);
  return tracer ? recorder(tracer, trace.traceparent || null, intel) : null;
}

function recorder(tracer: Tracer, parent: string | null, intel: IntelligenceSpec): TurnSpans {
  let chat: SpanHandle | null = null;
  let tool: SpanHandle | null = null;
  const seen = { in: 0, out: 0 };
  const model = {
    'gen_ai.request.model': intel.model,
    'gen_ai.provider.name': PROVIDERS[intel.dialect] ?? intel.dialect,
  };
  return {
    on(event, fields) {
      if (event === 'turn.think') {
        chat?.end('no answer');
        chat = tracer.start(`chat ${intel.model}`, { 'gen_ai.operation.name': 'chat', ...model }, parent);
      } else if (event === 'turn.round' && chat) {
        // turn.round carries the turn's running totals: this call's tokens are what grew since the last one.
        const [tokensIn, tokensOut] = [num(fields.tokens_in), num(fields.tokens_out)];
        chat.set({
          'gen_ai.usage.input_tokens': tokensIn - seen.in,
          'gen_ai.usage.output_tokens': tokensOut - seen.out,
        });
        [seen.in, seen.out] = [tokensIn, tokensOut];
        chat.end();
        chat = null;
      } else if (event === 'turn.tool') {
        const name = String(fields.tool);
        tool = tracer.start(
          `execute_tool ${name}`,
          { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name },
          parent,
        );
      } else if (event === 'turn.tool_done' && tool) {
        if (typeof fields.id === 'string') tool.set({ 'gen_ai.tool.call.id': fields.id });
        tool.end(fields.is_error === true ? 'tool error' : undefined);
        tool = null;
      }
    },
    close(boundMs) {
      chat?.end('no answer');
      tool?.end('not finished');
      return settleTracer(tracer, 'shutdown', boundMs);
    },
  };
}
