// A daemon whose one workflow starts once at boot and stops at a `human` step: the configuration and the question
// it asks, shared by the tests of that gate.
import type { ScriptedModel } from '../doubles/scriptedModel.js';

export const OPERATOR_TOKEN = 'op-token-0123456789abcdef0123456789';

/** The daemon's YAML: an operator principal, the scripted model, and workflow `name` with `steps` (YAML lines). */
export function gateYaml(model: ScriptedModel, name: string, steps: string[]): string {
  return `a2a:
  listen: http://127.0.0.1:0
  principals:
    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}
intelligence:
  endpoints: ${model.url}
workflows:
  - name: ${name}
    steps:
${steps.map((line) => `      ${line}\n`).join('')}`;
}

/** The tasks the daemon logged as asking (`a2a.task` input_required), in order. */
export const asking = (events: Array<Record<string, unknown>>): string[] =>
  events.filter((e) => e.event === 'a2a.task' && e.state === 'input_required').map((e) => String(e.task));
