// The fixed prefix of a model call (issue 14 item 5): system prompt + tool schemas as the wire sends them, for a
// one-tool agent (the code tool `add`) with default settings, on the OpenAI and Anthropic wires, then with every
// family up front (`agent.tools.on_demand: []`) for comparison, and what each part of the default prefix weighs.
// Then the first request of a subagent's own turn (freeform, nesting allowed) and of a `think` call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent } from '../src/agent.js';
import { estimateText } from '../src/context/estimate.js';
import { type Playbook, startScriptedModel } from '../test/doubles/scriptedModel.js';
import { tools } from './addTool.js';

interface Prefix {
  system: string;
  tools: unknown[];
  body: string;
}

/** The system text and tool list of a recorded request body, whichever wire it came on. */
function prefixOf(body: Record<string, unknown>): Prefix {
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const raw = body.system ?? messages.find((m) => m.role === 'system')?.content ?? '';
  const system = Array.isArray(raw) ? raw.map((b: { text?: string }) => b.text ?? '').join('\n\n') : String(raw);
  return { system, tools: (body.tools ?? []) as unknown[], body: JSON.stringify(body) };
}

/** Who sent the request measured: the conversation's turn, or a child it started through a tool. */
type Who = 'turn' | 'subagent' | 'think';

const CHILD_CALL: Record<Exclude<Who, 'turn'>, { name: string; arguments: Record<string, unknown>; marker: string }> = {
  subagent: { name: 'subagent.run', arguments: { instruction: 'sub job' }, marker: 'You are a subagent of' },
  think: { name: 'think', arguments: { question: 'why?' }, marker: 'why?' },
};

function playbookFor(who: Who): Playbook {
  if (who === 'turn') return { turns: [{ content: 'ok' }] };
  const { name, arguments: args, marker } = CHILD_CALL[who];
  return {
    turns: [{ tool_calls: [{ name, arguments: args }] }, { content: 'ok' }],
    match: [{ when_contains: marker, times: 1, content: 'child done' }],
  };
}

async function firstRequest(
  dialect: 'openai' | 'anthropic',
  extraEnv: Record<string, string> = {},
  who: Who = 'turn',
): Promise<Prefix> {
  const model = await startScriptedModel(playbookFor(who));
  const dir = mkdtempSync(join(tmpdir(), 'agentd-prefix-'));
  const env = {
    ...{ AGENTD_STATE_DIR: dir, AGENTD_OBSERVABILITY_LOG_LEVEL: 'error', AGENTD_AGENT_PREFLIGHT: 'never' },
    ...extraEnv,
  };
  const flags = { intelligence: model.url, model: dialect === 'anthropic' ? 'claude-x' : 'gpt-x' };
  const agent = await createAgent({
    config: { env: { ...env, AGENTD_INTELLIGENCE_DIALECT: dialect }, flags, cwd: dir },
    tools,
    toolsModule: new URL('./addTool.js', import.meta.url),
    listen: null,
    metrics: null,
  });
  try {
    const outcome = await agent.send('hello');
    if (outcome.status !== 'completed') throw new Error(`${dialect}: ${outcome.status} ${outcome.error ?? ''}`);
  } finally {
    await agent.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const marker = who === 'turn' ? null : CHILD_CALL[who].marker;
  const body = model.requests.find((r) => marker === null || JSON.stringify(r.body).includes(marker))?.body;
  if (typeof body !== 'object' || body === null) throw new Error(`${dialect} ${who}: no request recorded`);
  return prefixOf(body as Record<string, unknown>);
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const cell = (n: number, w = 7): string => String(n).padStart(w);

console.log('fixed prefix per model call, one code tool (add), default settings; tokens ≈ ceil(chars / 4)');
console.log(
  `${'wire'.padEnd(25)} ${'tools'.padStart(5)} ${'system B'.padStart(9)} ${'tools B'.padStart(8)} ${'prefix B'.padStart(9)} ${'≈tokens'.padStart(8)} ${'request B'.padStart(10)}`,
);
const EVERY_FAMILY = { AGENTD_AGENT_TOOLS_ON_DEMAND: '' };
let breakdown: Prefix | undefined;
for (const [label, dialect, extra, who] of [
  ['openai', 'openai', {}, 'turn'],
  ['anthropic', 'anthropic', {}, 'turn'],
  ['openai, on_demand: []', 'openai', EVERY_FAMILY, 'turn'],
  ['anthropic, on_demand: []', 'anthropic', EVERY_FAMILY, 'turn'],
  ['subagent turn, openai', 'openai', {}, 'subagent'],
  ['subagent, on_demand: []', 'openai', EVERY_FAMILY, 'subagent'],
  ['think call, openai', 'openai', {}, 'think'],
] as const) {
  const p = await firstRequest(dialect, extra, who);
  breakdown ??= p;
  const toolsText = JSON.stringify(p.tools);
  const prefix = bytes(p.system) + bytes(toolsText);
  const tokens = estimateText(p.system) + estimateText(toolsText);
  console.log(
    `${label.padEnd(25)} ${cell(p.tools.length, 5)} ${cell(bytes(p.system), 9)} ${cell(bytes(toolsText), 8)} ` +
      `${cell(prefix, 9)} ${cell(tokens, 8)} ${cell(bytes(p.body), 10)}`,
  );
}
if (breakdown !== undefined) {
  console.log('\nthe default OpenAI prefix, part by part (bytes of JSON as sent):');
  console.log(`  ${'system prompt'.padEnd(24)} ${cell(bytes(breakdown.system))}`);
  for (const tool of breakdown.tools as Array<{ function?: { name?: string } }>) {
    console.log(`  ${(tool.function?.name ?? '?').padEnd(24)} ${cell(bytes(JSON.stringify(tool)))}`);
  }
}
