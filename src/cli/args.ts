// Command-line flags (DESIGN.md "Contracts"): parsed with commander, every mistake a usage error (exit 2).
import { Command, CommanderError, Option } from 'commander';
import type { ConfigFlags } from '../config/types.js';
import { DaemonError } from '../errors.js';
import { VERSION } from '../runtime/version.js';

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

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function buildProgram(): Command {
  return new Command()
    .name('agentd')
    .description('A durable, MCP-native agent daemon. With --prompt it runs one job and prints the reply.')
    .version(VERSION, '--version')
    .addOption(new Option('--config <file>', 'YAML config file; repeat to layer files').default([]).argParser(collect))
    .option('--prompt <text>', 'a message for conversation "root", sent as the operator (agent.prompt)')
    .option('--instruction <text>', 'the standing instruction (agent.instruction)')
    .option('--model <model>', 'the model id (intelligence.model)')
    .option(
      '--intelligence <url>',
      'an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 (intelligence.endpoints)',
    )
    .option('--deadline <duration>', 'bound the whole run, e.g. 30s or 5m (limits.run.deadline)')
    .option(
      '--state-dir <dir>',
      'the store directory (store.path); a one-shot job without one (or AGENTD_STATE_DIR) keeps no state',
    )
    .addOption(
      new Option(
        '--mcp <server>',
        'an MCP server, NAME=URL or NAME="command args"; repeatable (mcp.servers)',
      ).argParser(collect),
    )
    .option('--watch-config', 'reload the configuration when a --config file changes (as SIGHUP does)', false)
    .option('--validate-config', 'check the configuration and exit 0 (valid) or 2 (invalid)', false)
    .option('--capabilities', 'print what this instance offers (tools, MCP servers, store) as JSON and exit', false)
    .option(
      '--context-template',
      'print the built-in system prompt template (context.template replaces it) and exit',
      false,
    )
    .addHelpText(
      'after',
      [
        '\nTalk to a running daemon (--url URL or AGENTD_URL, --token TOKEN or AGENTD_TOKEN, --json):',
        '  agentd send TEXT [--no-wait] [--conversation ID] [--plan]   agentd tasks   agentd status',
        '  agentd cancel TASK   agentd answer TASK TEXT   agentd pause|resume|drain',
        '  agentd goal set|get|clear [OBJECTIVE]   agentd log [--since SEQ]   agentd tui [--start --config FILE]',
        '  agentd pair (a one-time code for the web UI at /ui)',
        '  agentd reload --url URL [--token TOKEN]',
      ].join('\n'),
    )
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
