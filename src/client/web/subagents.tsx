// The subagents tab (interfaces §2.3, §5 case 11): master–detail. The list (the caller's subagents, with mode and
// status) stays on screen; the detail shows the chosen one's instruction, live activity, tokens and result, a stop
// that asks first, and a message box for a live warm subagent. Reads create no task (subagent.list / .status).
import { useState } from 'preact/hooks';
import { ConfirmButton } from './confirm.js';
import { useReload } from './reload.js';
import { killSubagent, listSubagents, type SubagentRow, sendToSubagent, subagentStatus } from './rpc.js';

/** A subagent's last activity from the feed (its worker's phase, tool and round). */
export interface SubagentActivity {
  phase: string;
  tool: string | null;
  round: number | null;
}

const LIVE = new Set(['spawned', 'running']);

/** `thinking`, `tool read_file`, `round 3`: what the subagent does now. */
function activityLine(a: SubagentActivity | undefined): string | null {
  if (!a) return null;
  const what = a.phase === 'tool' && a.tool ? `tool ${a.tool}` : a.phase;
  return a.round === null ? what : `${what} · round ${a.round}`;
}

/** The result as text: a string as it is, anything else as JSON. */
const resultText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

function Detail(props: { row: SubagentRow; activity: SubagentActivity | undefined; tick: unknown }) {
  const { row } = props;
  const { value: detail, error } = useReload(
    () => subagentStatus(row.handle),
    `${row.status}:${String(props.tick)}`,
    2_000,
  );
  const [note, setNote] = useState<string | null>(null);
  const [text, setText] = useState('');
  const live = LIVE.has(detail?.status ?? row.status);
  const canSend = live && row.mode === 'warm';
  const send = (e: Event) => {
    e.preventDefault();
    const message = text.trim();
    if (!message) return;
    sendToSubagent(row.handle, message).then(
      () => setText(''),
      (err: Error) => setNote(err.message),
    );
  };
  const stop = () =>
    killSubagent(row.handle).then(
      () => setNote(null),
      (err: Error) => setNote(err.message),
    );
  return (
    <section class="subagent-detail" aria-label={`Subagent ${row.handle}`}>
      <h3>{row.handle}</h3>
      <dl>
        <dt>status</dt>
        <dd class={`state ${detail?.status ?? row.status}`}>{detail?.status ?? row.status}</dd>
        <dt>mode</dt>
        <dd>{row.mode}</dd>
        <dt>instruction</dt>
        <dd>{row.instruction}</dd>
        {live && (
          <>
            <dt>activity</dt>
            <dd>
              <span role="status" aria-label="Activity">
                {activityLine(props.activity) ?? 'starting'}
              </span>
            </dd>
          </>
        )}
        <dt>tokens</dt>
        <dd>{detail ? resultText(detail.tokens) : '…'}</dd>
        {detail?.result !== undefined && detail.result !== null && (
          <>
            <dt>result</dt>
            <dd>
              <pre class="result">{resultText(detail.result)}</pre>
            </dd>
          </>
        )}
        {detail?.error && (
          <>
            <dt>error</dt>
            <dd class="error">{detail.error}</dd>
          </>
        )}
      </dl>
      {(error || note) && (
        <p role="alert" class="error">
          {note ?? error}
        </p>
      )}
      {live && (
        <ConfirmButton
          label={`Stop ${row.handle}`}
          question={`Stop subagent ${row.handle}?`}
          yes="Yes, stop it"
          no="Keep running"
          onConfirm={stop}
        />
      )}
      <form class="composer" onSubmit={send}>
        <label for="subagent-message">Message to {row.handle}</label>
        <input
          id="subagent-message"
          value={text}
          disabled={!canSend}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={!canSend}>
          Send
        </button>
      </form>
      {!canSend && <p class="hint">{live ? 'Only a warm subagent takes messages.' : 'It is no longer running.'}</p>}
    </section>
  );
}

export function SubagentsView(props: {
  handle: string | undefined;
  activity: Record<string, SubagentActivity>;
  /** Changes whenever the feed moves: the list is read again. */
  tick: unknown;
  onChoose(handle: string): void;
}) {
  const { value: rows, error } = useReload(listSubagents, props.tick, 2_000);
  const chosen = (rows ?? []).find((r) => r.handle === props.handle);
  return (
    <main class="subagents" aria-label="Subagents">
      <nav class="subagent-list" aria-label="Subagent list">
        <h2>Subagents</h2>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {rows !== null && rows.length === 0 && (
          <p class="hint">No subagents yet: they appear here as the agent delegates work (subagent.run).</p>
        )}
        <ul>
          {(rows ?? []).map((r) => (
            <li key={r.handle}>
              <button
                type="button"
                class={`state ${r.status}`}
                aria-pressed={r.handle === props.handle}
                onClick={() => props.onChoose(r.handle)}
              >
                <span class="handle">{r.handle}</span> <span class="mode">{r.mode}</span>{' '}
                <span class="status">{r.status}</span>
              </button>
            </li>
          ))}
        </ul>
      </nav>
      {chosen ? (
        <Detail key={chosen.handle} row={chosen} activity={props.activity[chosen.handle]} tick={props.tick} />
      ) : (
        <p class="hint">{props.handle && rows !== null ? `No subagent ${props.handle} here.` : 'Choose a subagent.'}</p>
      )}
    </main>
  );
}
