// The CLI's flags and subcommands as data (DESIGN.md "Contracts"): the parsers (args.ts, clientCommands.ts,
// reloadCommand.ts) build their commander programs from these tables and docs/reference/cli.md is rendered from
// them (cliReference.ts), so a flag cannot exist without its documented entry. Data, and the one function that
// turns it into commander options.
import { type Command, Option } from 'commander';

/** One option as commander spells it (`--deadline <duration>`), its help line and default. */
export interface FlagSpec {
  flags: string;
  doc: string;
  default?: string | boolean | string[];
  /** Repeatable: every value is collected into a list. */
  repeat?: true;
  /** Must be given. */
  required?: true;
}

/** One positional argument (`<text>` required, `[objective]` optional). */
export interface ArgSpec {
  name: string;
  doc: string;
}

/** A subcommand: `agentd <name> ARGS [flags]`. */
export interface SubcommandSpec {
  name: string;
  summary: string;
  args: readonly ArgSpec[];
  flags: readonly FlagSpec[];
}

/** The flags of `agentd` itself (a job, a daemon, or a check); those that set a config key are in FLAG_KEYS. */
export const JOB_FLAGS: readonly FlagSpec[] = [
  {
    flags: '--config <file>',
    doc: 'YAML config file; repeat to layer files (later files merge over earlier ones)',
    default: [],
    repeat: true,
  },
  { flags: '--prompt <text>', doc: 'a message for conversation "root", sent as the operator (agent.prompt)' },
  { flags: '--instruction <text>', doc: 'the standing instruction (agent.instruction)' },
  { flags: '--model <model>', doc: 'the model id (intelligence.model)' },
  {
    flags: '--intelligence <url>',
    doc: 'an OpenAI-compatible endpoint: a base URL ending in /v1 (e.g. http://127.0.0.1:8080/v1) or the full …/chat/completions URL; a comma list is failover order (intelligence.endpoints)',
  },
  {
    flags: '--deadline <duration>',
    doc: 'bound the whole run, a model call in flight included, e.g. 500ms, 30s, 5m, 1h (limits.run.deadline)',
  },
  {
    flags: '--state-dir <dir>',
    doc: 'the store directory (store.path); a one-shot job without one (or AGENTD_STATE_DIR) keeps no state',
  },
  {
    flags: '--mcp <server>',
    doc: 'an MCP server: NAME=URL (Streamable HTTP) or NAME="command args" (stdio) (mcp.servers)',
    repeat: true,
  },
  {
    flags: '--watch-config',
    doc: 'reload the configuration when a --config file changes (as SIGHUP does)',
    default: false,
  },
  {
    flags: '--validate-config',
    doc: 'check the configuration and exit 0 (valid) or 2 (invalid, with the reason on stderr)',
    default: false,
  },
  {
    flags: '--capabilities',
    doc: 'print what this instance offers as JSON (version, internal and code tools, each MCP server with its tools, the store) and exit; opens no store, calls no model',
    default: false,
  },
  {
    flags: '--context-template',
    doc: 'print the built-in system prompt template (context.template replaces it) and exit',
    default: false,
  },
];

/** Flags commander itself adds to `agentd`. */
export const BUILTIN_FLAGS: readonly FlagSpec[] = [
  { flags: '--version', doc: 'print the version and exit' },
  { flags: '-h, --help', doc: 'print the help and exit' },
];

/** Flags every client subcommand takes (where it finds the daemon, and the output's shape). */
export const CLIENT_FLAGS: readonly FlagSpec[] = [
  { flags: '--url <url>', doc: "the daemon's A2A URL (default: AGENTD_URL, or a2a.listen of --config)" },
  { flags: '--token <token>', doc: 'a bearer token (default: AGENTD_TOKEN)' },
  { flags: '--config <file>', doc: 'a config file whose a2a.listen names the daemon' },
  { flags: '--json', doc: 'print JSON for scripts', default: false },
];

const conversation = (doc: string, fallback?: string): FlagSpec =>
  fallback === undefined
    ? { flags: '--conversation <id>', doc }
    : { flags: '--conversation <id>', doc, default: fallback };

/** The client subcommands: they talk to a running daemon over its A2A listener. */
export const CLIENT_SUBCOMMANDS: readonly SubcommandSpec[] = [
  {
    name: 'send',
    summary: 'send a message and print the reply (or, with --no-wait, the task id)',
    args: [{ name: '<text>', doc: 'the message' }],
    flags: [
      { flags: '--no-wait', doc: 'print the task id at once instead of waiting for the reply' },
      conversation('the conversation (context id) to continue; latest = your most recent one'),
      { flags: '--plan', doc: 'run the turn in plan mode', default: false },
    ],
  },
  {
    name: 'tasks',
    summary: 'list tasks, newest first, one page at a time',
    args: [],
    flags: [
      { flags: '--limit <n>', doc: 'tasks per page', default: '20' },
      { flags: '--page <token>', doc: 'the page token a previous listing printed' },
      conversation('only this conversation'),
    ],
  },
  { name: 'status', summary: "print the instance's status (operators)", args: [], flags: [] },
  { name: 'cancel', summary: 'cancel a task', args: [{ name: '<task>', doc: 'the task id' }], flags: [] },
  {
    name: 'answer',
    summary: 'answer a task that asks a question (input_required)',
    args: [
      { name: '<task>', doc: 'the task asking' },
      { name: '<text>', doc: 'the answer' },
    ],
    flags: [{ flags: '--wait', doc: 'wait', default: false }],
  },
  { name: 'pause', summary: 'stop starting turns (operators)', args: [], flags: [] },
  { name: 'resume', summary: 'start turns again after a pause (operators)', args: [], flags: [] },
  { name: 'drain', summary: 'finish running turns, start no new one, then stop (operators)', args: [], flags: [] },
  {
    name: 'goal',
    summary: "set, read or clear a conversation's goal",
    args: [
      { name: '<action>', doc: 'set, get or clear' },
      { name: '[objective]', doc: 'the objective (set)' },
    ],
    flags: [
      conversation('the conversation (default: root)', 'root'),
      { flags: '--budget <tokens>', doc: 'a token budget for the goal (set)' },
    ],
  },
  {
    name: 'log',
    summary: "follow the instance's client feed",
    args: [],
    flags: [{ flags: '--since <seq>', doc: 'resume after this seq (default: only new events; 0 = all retained)' }],
  },
  {
    name: 'tui',
    summary: 'the terminal UI, attached to a running daemon or (with --start) to one it starts',
    args: [],
    flags: [
      { flags: '--start', doc: 'start a daemon with --config and stop it on quit', default: false },
      {
        flags: '--inline',
        doc: 'draw in the normal screen (its last frame stays in the scrollback) instead of fullscreen',
        default: false,
      },
      conversation('the conversation to open: an id, latest (default) or new'),
    ],
  },
  { name: 'pair', summary: 'print a one-time pairing code for the web UI at /ui (operators)', args: [], flags: [] },
];

/** `agentd reload`: asks a running daemon to reload its config (interfaces §3.6). */
export const RELOAD_COMMAND: SubcommandSpec = {
  name: 'reload',
  summary: 'ask a running daemon to reload its configuration; exit 0 applied or unchanged, 2 refused, 1 unreachable',
  args: [],
  flags: [
    { flags: '--url <url>', doc: "the daemon's A2A URL (a2a.listen)", required: true },
    { flags: '--token <token>', doc: "an operator principal's bearer token (default: AGENTD_TOKEN)" },
  ],
};

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds the spec's positional arguments and flags to a commander command. */
export function declareFlags(command: Command, flags: readonly FlagSpec[], args: readonly ArgSpec[] = []): Command {
  for (const arg of args) command.argument(arg.name, arg.doc);
  for (const spec of flags) {
    const option = new Option(spec.flags, spec.doc);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.repeat) option.argParser(collect);
    if (spec.required) option.makeOptionMandatory();
    command.addOption(option);
  }
  return command;
}
