// What compileConfig reads from: the files, the environment, the CLI flags and the caller's hooks.
import type { WorkflowLoader } from './workflowKeys.js';

/** Inputs to compileConfig: config files in order, the environment, and the parsed CLI flags. */
export interface ConfigSources {
  files: string[];
  env: Record<string, string | undefined>;
  flags: ConfigFlags;
  /** Config keys as YAML text, layered above the files (createAgent's inline options); `name` prefixes messages. */
  inline?: { name: string; text: string };
  /** Base for relative paths (store.path); default process.cwd() by the caller. */
  cwd: string;
  /**
   * The `agentd` command: a run without `a2a.listen` is a one-shot job, which keeps no store unless one is named.
   * Absent (createAgent, tests): the store default is the same for every shape.
   */
  oneShot?: boolean;
  /** Only settings whose key path this accepts are read; the rest keep their defaults and their secrets stay
   * unresolved (a client subcommand needs `a2a.*` alone, not the model's key). Absent = every setting. */
  only?: (path: string) => boolean;
  /** Parses the `workflows:` documents (cli and createAgent pass workflows' loader; config imports no feature). */
  workflows?: WorkflowLoader;
}

/** CLI flags that map onto config keys. Absent ⇒ not given. */
export interface ConfigFlags {
  prompt?: string;
  instruction?: string;
  model?: string;
  intelligence?: string;
  deadline?: string;
  /** `--mcp NAME=URL` or `--mcp NAME="command args"`, repeatable. */
  mcp?: string[];
  /** `--state-dir DIR`: the store's directory (store.path); naming it makes a one-shot job durable. */
  stateDir?: string;
}
