// The tasks tab (every task the caller may see, with its state and a cancel button while it runs) and the status
// tab (live turns, queue, budgets, workers: the `status` command's document), each re-read as the feed moves.
import { useState } from 'preact/hooks';
import { fieldText } from '../statusLines.js';
import type { TuiState } from '../tuiState.js';
import { ConfirmButton } from './confirm.js';
import { useReload } from './reload.js';
import { cancelTask, command, listTasks, type WireTask } from './rpc.js';

const TERMINAL = /COMPLETED|FAILED|CANCELED|REJECTED/;
const state = (t: WireTask): string => t.status.state.replace(/^TASK_STATE_/, '').toLowerCase();
const text = (t: WireTask): string =>
  (t.artifacts?.[0]?.parts ?? t.status.message?.parts ?? []).map((p) => p.text ?? '').join('');

export function TasksView({ state: feed }: { state: TuiState }) {
  const { value: tasks, error } = useReload(listTasks, feed.rows.length + Object.keys(feed.active).length, 5_000);
  const [note, setNote] = useState<string | null>(null);
  return (
    <main class="tasks" aria-label="Tasks">
      <h2>Tasks</h2>
      {(error || note) && (
        <p role="alert" class="error">
          {error ?? note}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">State</th>
            <th scope="col">Conversation</th>
            <th scope="col">Result or message</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(tasks ?? []).map((t) => (
            <tr key={t.id}>
              <td title={t.id}>{t.id.slice(-8)}</td>
              <td class={`state ${state(t)}`}>{state(t)}</td>
              <td title={t.contextId}>{t.contextId.slice(-8)}</td>
              <td>{text(t).slice(0, 80)}</td>
              <td>
                {!TERMINAL.test(t.status.state) && (
                  <ConfirmButton
                    label={`Cancel ${t.id.slice(-8)}`}
                    question={`Cancel task ${t.id.slice(-8)}?`}
                    yes="Yes, cancel"
                    no="Keep running"
                    onConfirm={() => cancelTask(t.id).catch((e: Error) => setNote(e.message))}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

/** One status field as a short line: numbers and strings as they are, anything else as compact JSON. */
function show(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
}

export function StatusView({ state: feed }: { state: TuiState }) {
  const { value, error } = useReload(() => command('status'), feed.working?.phase ?? feed.rows.length, 2_000);
  const doc = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return (
    <main class="status" aria-label="Status">
      <h2>Status</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p class="field" role="status">
        {feed.paused ? 'paused' : 'running'} · budget {feed.budget ?? 'none set'}
      </p>
      <dl>
        {Object.entries(doc).map(([key, v]) => (
          <div key={key} class="field">
            <dt>{key}</dt>
            <dd>{fieldText(key, v)?.map((line) => <div key={line}>{line}</div>) ?? <code>{show(v)}</code>}</dd>
          </div>
        ))}
      </dl>
    </main>
  );
}
