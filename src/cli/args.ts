// Command-line flags (DESIGN.md "Contracts"): parsed with commander, every mistake a usage error (exit 2).
import { Command, CommanderError } from 'commander';
import type { ConfigFlags } from '../config/types.js';
import { DaemonError } from '../errors.js';
import { VERSION } from '../runtime/version.js';
import { CLIENT_SUBCOMMANDS, declareFlags, JOB_FLAGS, RELOAD_COMMAND } from './flagTable.js';

/** The flags that map onto config keys, plus the ones that choose what the command does. */
export interface CliArgs extends ConfigFlags {
  configFiles: string[];
  validateConfig: boolean;
  capabilities: boolean;
  contextTemplate: boolean;
  /** Reload when a config file changes (interfaces §3.6). */
  watchConfig: boolean;
}

export { VERSION } from '../runtime/version.js';

/** The subcommands under `agentd --help`, from the same table their parsers read. */
function subcommandHelp(): string {
  const usages = [...CLIENT_SUBCOMMANDS, RELOAD_COMMAND].map((c) => ({
    usage: `agentd ${[c.name, ...c.args.map((a) => a.name)].join(' ')}`,
    summary: c.summary,
  }));
  const width = Math.max(...usages.map((u) => u.usage.length));
  const lines = usages.map((u) => `  ${u.usage.padEnd(width)}  ${u.summary}`);
  const head = 'Talk to a running daemon (--url URL or AGENTD_URL, --token TOKEN or AGENTD_TOKEN, --json):';
  return ['', head, ...lines, '', 'agentd <subcommand> --help lists its flags.'].join('\n');
}

function buildProgram(): Command {
  const program = new Command()
    .name('agentd')
    .description('A durable, MCP-native agent daemon. With --prompt it runs one job and prints the reply.')
    .version(VERSION, '--version');
  return declareFlags(program, JOB_FLAGS)
    .addHelpText('after', subcommandHelp())
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
}

/** Parses argv (including the node and script entries). `help` / `version` return their text to print. */
export function parseArgs(argv: string[]): CliArgs | { print: string } {
  const program = buildProgram();
  let helpText: string | undefined;
  program.configureOutput({ writeOut: (s) => (helpText = (helpText ?? '') + s), writeErr: () => {} });
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return { print: helpText ?? '' };
      throw new DaemonError('usage_invalid', err.message.replace(/^error: /, ''));
    }
    throw err;
  }
  const o = program.opts<Record<string, unknown>>();
  const args: CliArgs = {
    configFiles: o.config as string[],
    validateConfig: o.validateConfig === true,
    capabilities: o.capabilities === true,
    contextTemplate: o.contextTemplate === true,
    watchConfig: o.watchConfig === true,
  };
  if (Array.isArray(o.mcp)) args.mcp = o.mcp as string[];
  for (const key of ['prompt', 'instruction', 'model', 'intelligence', 'deadline', 'stateDir'] as const) {
    if (typeof o[key] === 'string') args[key] = o[key] as string;
  }
  return args;
}
