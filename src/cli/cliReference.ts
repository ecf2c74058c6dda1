// Renders docs/reference/cli.md from the flag table (flagTable.ts), the flag → key map (FLAG_KEYS) and the exit
// table, so the page cannot drift from the parser (test/unit/docs/reference.test.ts compares them). Pure.
import { FLAG_KEYS } from '../config/envSource.js';
import type { ConfigFlags } from '../config/types.js';
import { EXIT, EXIT_MEANINGS } from '../protocol/exitTable.js';
import {
  BUILTIN_FLAGS,
  CLIENT_FLAGS,
  CLIENT_SUBCOMMANDS,
  type FlagSpec,
  JOB_FLAGS,
  RELOAD_COMMAND,
  type SubcommandSpec,
} from './flagTable.js';

/** What the page is rendered from; each part defaults to the code's own table. */
export interface CliTables {
  jobFlags: readonly FlagSpec[];
  subcommands: readonly SubcommandSpec[];
  exitCodes: Readonly<Record<string, number>>;
  exitMeanings: Readonly<Record<string, string>>;
}

const TABLES: CliTables = {
  jobFlags: [...JOB_FLAGS, ...BUILTIN_FLAGS],
  subcommands: [...CLIENT_SUBCOMMANDS, RELOAD_COMMAND],
  exitCodes: EXIT,
  exitMeanings: EXIT_MEANINGS,
};

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** `--state-dir <dir>` → `stateDir`, the name the parser gives its value. */
function attributeOf(flags: string): string {
  const long = /--([a-z-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function meaning(spec: FlagSpec): string {
  const notes = [spec.repeat ? 'repeatable' : '', spec.required ? 'required' : ''].filter(Boolean);
  const shown = typeof spec.default === 'string' || spec.default === true;
  const fallback = shown ? ` (default ${JSON.stringify(spec.default)})` : '';
  return cell(`${spec.doc}${fallback}${notes.length ? `; ${notes.join(', ')}` : ''}`);
}

function jobFlagRow(spec: FlagSpec): string {
  const key = FLAG_KEYS[attributeOf(spec.flags) as keyof ConfigFlags];
  return `| \`${cell(spec.flags)}\` | ${key ? `\`${key}\`` : ''} | ${meaning(spec)} |`;
}

const flagRow = (spec: FlagSpec): string => `| \`${cell(spec.flags)}\` | ${meaning(spec)} |`;

function subcommandSection(command: SubcommandSpec, common: readonly FlagSpec[]): string[] {
  const usage = ['agentd', command.name, ...command.args.map((a) => a.name), '[flags]'].join(' ');
  const summary = `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`;
  const lines = ['', `### \`agentd ${command.name}\``, '', summary, '', `    ${usage}`, ''];
  for (const arg of command.args) lines.push(`- \`${arg.name}\`: ${arg.doc}`);
  if (command.args.length > 0) lines.push('');
  lines.push('| flag | meaning |', '|---|---|', ...[...command.flags, ...common].map(flagRow));
  return lines;
}

/** The whole page, Markdown. */
export function renderCliReference(tables: CliTables = TABLES): string {
  const lines = [
    '# Command line',
    '',
    'Generated from `src/cli/flagTable.ts` (the table the parsers are built from), `FLAG_KEYS` and the exit table',
    '(`src/protocol/exitTable.ts`) by `node scripts/gen-reference.mjs` (after `npm run build`); a test fails when this',
    'page and the code differ. How to run a job and what it prints: [Running a job](../guide/job.md); the client',
    'subcommands in use: [Talking to a running agent](../guide/interfaces.md).',
    '',
    '## `agentd` (a job, a daemon, or a check)',
    '',
    '    agentd [--config FILE]... [--prompt TEXT] [flags]',
    '',
    'A flag that sets a config key wins over the files and the environment ([Configuration](config.md)).',
    '',
    '| flag | config key | meaning |',
    '|---|---|---|',
    ...tables.jobFlags.map(jobFlagRow),
    '',
    '## Subcommands',
    '',
    'The client subcommands talk to a running daemon over its A2A listener; each also takes the common flags',
    '(`--url`, `--token`, `--config`, `--json`). `agentd reload` takes only its own.',
  ];
  for (const command of tables.subcommands) {
    lines.push(...subcommandSection(command, command.name === RELOAD_COMMAND.name ? [] : CLIENT_FLAGS));
  }
  lines.push('', '## Exit codes', '', '| code | name | meaning |', '|---|---|---|');
  const codes = Object.entries(tables.exitCodes).sort((a, b) => a[1] - b[1]);
  for (const [name, code] of codes) lines.push(`| ${code} | \`${name}\` | ${cell(tables.exitMeanings[name] ?? '')} |`);
  return `${lines.join('\n')}\n`;
}
