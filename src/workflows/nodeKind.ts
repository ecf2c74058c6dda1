// What one node kind is (producers reference §2.4, §2.8): its fields, its doc text and its behaviour, defined once.
// The registry (nodeKinds.ts) lists them; validation, execution and docs/reference/workflow-nodes.md read it.
import type { StepDef, StepWait, WorkflowRun } from '../domain/workflow.js';
import type { MemoryPort } from '../store/store.js';

export type KindCategory = 'start' | 'control' | 'data' | 'integration' | 'intelligence';

export interface FieldSpec {
  required?: boolean;
  doc: string;
  /** Never pre-rendered: the kind evaluates it itself (CEL over per-item scope). */
  raw?: boolean;
}

/** What a step's execution decided; the engine only switches on it. */
export type StepResult =
  | { type: 'done'; output: unknown; setVar?: { name: string; value: unknown } }
  | { type: 'failed'; error: string; timeout?: boolean }
  | { type: 'suspend'; wait: StepWait }
  | { type: 'finish'; status: 'completed' | 'failed' | 'refused' | 'cancelled'; output: unknown; reason: string | null }
  | { type: 'switch'; output: unknown; goto: string; prune: string[] };

/** The effects a kind may reach, passed in so kinds stay testable without the engine. */
export interface StepPorts {
  memory: MemoryPort;
  /** Outbound HTTP for the `http` kind (fetch, guarded by the kind). */
  fetch: typeof fetch;
  /** Resolves a host name to its addresses (the private-address refusal checks every one). */
  lookup(host: string): Promise<string[]>;
}

export interface StepContext {
  run: Readonly<WorkflowRun>;
  step: Readonly<StepDef>;
  /** The kind's fields rendered (raw fields left as written). */
  spec: Readonly<Record<string, unknown>>;
  /** The namespaces CEL and templates see (reference §2.5). */
  scope: Readonly<Record<string, unknown>>;
  now: number;
  /** Stable per (run, step, attempt-independent): sha256("<run>.<step>")[0:32] unless the step pins one. */
  idempotencyKey: string;
  attempt: number;
  ports: StepPorts;
  /** Aborted when the step's timeout, the run's deadline or a cancel ends it. */
  signal: AbortSignal;
}

export interface NodeKind {
  name: string;
  category: KindCategory;
  doc: string;
  fields: Readonly<Record<string, FieldSpec>>;
  /** False: in the catalogue but refused at load in this build (never accepted and ignored). */
  implemented: boolean;
  /** Reaches outside the run (store, network): the run is committed with the step `running` before it starts. */
  effect?: boolean;
  /** Load-time checks beyond presence and CEL compilation: problem texts (without the step prefix). */
  check?(fields: Readonly<Record<string, unknown>>, stepIds: ReadonlySet<string>): string[];
  /** Absent for start kinds (they are never executed: firing one starts the run). */
  run?(ctx: StepContext): StepResult | Promise<StepResult>;
}

export const done = (output: unknown): StepResult => ({ type: 'done', output });
export const failed = (error: string): StepResult => ({ type: 'failed', error });
