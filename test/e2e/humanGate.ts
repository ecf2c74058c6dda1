// A daemon whose one workflow starts once at boot and stops at a `human` step: the configuration and the question
// it asks, shared by the tests of that gate.
import type { ScriptedModel } from '../doubles/scriptedModel.js';

export const OPERATOR_TOKEN = 'op-token-0123456789abcdef0123456789';

/** A daemon's YAML: an operator principal (`OPERATOR_TOKEN`), the scripted model, then `more` (YAML lines). */
export function operatorYaml(model: ScriptedModel, more: string[]): string {
  const head = ['a2a:', '  listen: http://127.0.0.1:0', '  principals:'];
  const root = '    - {id: root, role: operator, match: {bearer: "{{secret:OPERATOR_TOKEN}}"}}';
  return [...head, root, 'intelligence:', `  endpoints: ${model.url}`, ...more, ''].join('\n');
}

/** The daemon's YAML with workflow `name` made of `steps` (YAML lines). */
export function gateYaml(model: ScriptedModel, name: string, steps: string[]): string {
  return operatorYaml(model, [
    'workflows:',
    `  - name: ${name}`,
    '    steps:',
    ...steps.map((line) => `      ${line}`),
  ]);
}

/** The tasks the daemon logged as asking (`a2a.task` input_required), in order. */
export const asking = (events: Array<Record<string, unknown>>): string[] =>
  events.filter((e) => e.event === 'a2a.task' && e.state === 'input_required').map((e) => String(e.task));
