// The `subagents:` section's types (reference §1.3), apart from types.ts to keep each file small.

/** One typed parameter of a subagent template (checked at call time). */
export interface TemplateParam {
  type: 'string' | 'integer' | 'number' | 'boolean';
  required?: boolean;
  enum?: unknown[];
  default?: unknown;
  description?: string;
}

/** `subagents.templates.<name>` (reference §1.3): a named, parameterised `subagent.run`. */
export interface SubagentTemplate {
  /** `{{name}}` placeholders are filled from the call's params. */
  instruction: string;
  params: Record<string, TemplateParam>;
  servers?: string[];
  tools?: string[];
  limits?: Record<string, unknown>;
  mode?: 'sync' | 'async' | 'detached' | 'warm';
}

export interface SubagentsConfig {
  /** False: `subagent.run` must name a template. Default true. */
  allow_freeform: boolean;
  /** Default {}. */
  templates: Record<string, SubagentTemplate>;
  /** Ended records kept at most, newest first. Default 256. */
  keep: number;
  /** Ended records older than this (ms since their end) are dropped. Default 24 h. */
  keep_for: number;
}
