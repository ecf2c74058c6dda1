// The think presets (producers reference §2.8): classify, extract, summarize, judge and route become `think` steps
// with their own prompt and schema; `prompt` adds `Additional guidance: …`. They run through runThinkAsk.
import type { FieldSpec, NodeKind, StepContext } from '../nodeKind.js';
import { ownSchema, retriesOf, runThinkAsk, SKILLS_DOC, skillsOf, thinkFieldProblems } from './thinkKind.js';

/** What one preset adds to its think step: the instruction and the answer's schema. */
interface Preset {
  name: string;
  doc: string;
  fields: Record<string, FieldSpec>;
  check?(fields: Readonly<Record<string, unknown>>): string[];
  ask(ctx: StepContext): { instruction: string; schema: Record<string, unknown> };
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A preset's user message: its instruction, the guidance, then the input. */
function presetPrompt(instruction: string, ctx: StepContext): string {
  const guidance = ctx.spec['prompt'];
  const extra = guidance === undefined || guidance === null ? '' : `\n\nAdditional guidance: ${asText(guidance)}`;
  return `${instruction}${extra}\n\nInput:\n${asText(ctx.spec['input'])}`;
}

/** `route.choices`: a list of names, or a mapping of name → what it is for. */
function choiceNames(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map(String);
  return raw !== null && typeof raw === 'object' ? Object.keys(raw) : [];
}

function namesProblem(kind: string, field: string, raw: unknown, mapping: boolean): string[] {
  const names = choiceNames(raw);
  const shapeOk = Array.isArray(raw)
    ? raw.every((c) => typeof c === 'string' && c !== '')
    : mapping && names.length > 0;
  if (!shapeOk || names.length === 0)
    return [
      `${kind}.${field} must be a non-empty list of names${mapping ? ' or a mapping of name → description' : ''}`,
    ];
  return new Set(names).size === names.length ? [] : [`${kind}.${field} names must be unique`];
}

const input: FieldSpec = { required: true, doc: 'What the model reads (templates; non-strings as JSON).' };
const guidance: FieldSpec = { doc: 'Added as `Additional guidance: …`.' };
const skills: FieldSpec = { doc: SKILLS_DOC };

const PRESETS: readonly Preset[] = [
  {
    name: 'classify',
    doc: 'Puts `input` in exactly one of `classes`. Output `{class, confidence, reason}` (`class` ∈ classes, required).',
    fields: { input, classes: { required: true, doc: 'The class names (a non-empty list).' } },
    check: (f) => namesProblem('classify', 'classes', f['classes'], false),
    ask: (ctx) => {
      const classes = choiceNames(ctx.step.fields['classes']);
      return {
        instruction: `Classify the input into exactly one of these classes: ${classes.join(', ')}.`,
        schema: {
          type: 'object',
          required: ['class'],
          properties: {
            class: { enum: classes },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
            reason: { type: 'string' },
          },
        },
      };
    },
  },
  {
    name: 'extract',
    doc: 'Pulls the fields of `output_schema` out of `input`. Output: an object matching that schema.',
    fields: { input, output_schema: { required: true, doc: 'JSON Schema of what to extract.' } },
    ask: (ctx) => ({
      instruction:
        'Extract from the input the data the JSON Schema below describes. Leave out what the input does not say.',
      schema: ownSchema(ctx) ?? {},
    }),
  },
  {
    name: 'summarize',
    doc: 'Summarizes `input` in `length` (default `a short paragraph`). Output `{summary}`.',
    fields: { input, length: { doc: 'How long, in words (default `a short paragraph`).' } },
    ask: (ctx) => ({
      instruction: `Summarize the input in ${asText(ctx.spec['length'] ?? 'a short paragraph')}.`,
      schema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
    }),
  },
  {
    name: 'judge',
    doc: 'Judges `input` against `rubric`. Output `{verdict: pass|fail, score, reasons}` (`verdict` required).',
    fields: { input, rubric: { required: true, doc: 'What a pass means (templates).' } },
    ask: (ctx) => ({
      instruction: `Judge the input against this rubric and say whether it passes.\n\nRubric:\n${asText(ctx.spec['rubric'])}`,
      schema: {
        type: 'object',
        required: ['verdict'],
        properties: {
          verdict: { enum: ['pass', 'fail'] },
          score: { type: 'number' },
          reasons: { type: 'array', items: { type: 'string' } },
        },
      },
    }),
  },
  {
    name: 'route',
    doc: 'Chooses where `input` goes among `choices` (a list, or a mapping of name → description shown to the model). Output `{choice, reason}` (`choice` ∈ the names, required); a `switch` on `steps.<id>.output.choice` takes the chosen branch.',
    fields: { input, choices: { required: true, doc: 'The names (a list), or a mapping of name → description.' } },
    check: (f) => namesProblem('route', 'choices', f['choices'], true),
    ask: (ctx) => {
      const raw = ctx.step.fields['choices'];
      const names = choiceNames(raw);
      const listed = Array.isArray(raw)
        ? names.join(', ')
        : names.map((n) => `\n- ${n}: ${asText((raw as Record<string, unknown>)[n])}`).join('');
      return {
        instruction: `Choose the one route that fits the input best. Routes: ${listed}`,
        schema: {
          type: 'object',
          required: ['choice'],
          properties: { choice: { enum: names }, reason: { type: 'string' } },
        },
      };
    },
  },
];

function presetKind(preset: Preset): NodeKind {
  return {
    name: preset.name,
    category: 'intelligence',
    implemented: true,
    effect: true,
    doc: `A \`think\` step (same turn, re-asks and retries; one more turn after a bad reply). ${preset.doc}`,
    fields: { ...preset.fields, prompt: guidance, skills },
    check: (fields) => [...(preset.check?.(fields) ?? []), ...thinkFieldProblems(preset.name, fields)],
    run: (ctx) => {
      const { instruction, schema } = preset.ask(ctx);
      return runThinkAsk(ctx, {
        prompt: presetPrompt(instruction, ctx),
        schema,
        reads: [],
        check: null,
        retries: retriesOf(undefined),
        ...skillsOf(ctx),
      });
    },
  };
}

export const PRESET_KINDS: readonly NodeKind[] = PRESETS.map(presetKind);
