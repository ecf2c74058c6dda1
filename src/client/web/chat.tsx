// The chat tab (issue 18 item 4): the conversations list, one conversation's transcript with tool cards, the plan,
// the working row (thinking / tool / waiting), a question's form built from its schema, cancel, and the composer.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  goalLine,
  type Question,
  type Row,
  type TuiState,
  ViewRequests,
  viewOf,
  workingIn,
  workingLine,
} from '../tuiState.js';
import { ConfirmButton } from './confirm.js';
import { cancelTask, type History, history, type Listed, listConversations, sendText, type Who } from './rpc.js';

interface NavItem {
  ctx: string;
  last: string;
  by?: string;
}

/**
 * The nav: conversations with rows, newest first, each with its last line; then the stored ones the daemon lists
 * (`conversation.list`) that have none here yet. Keyed as the rows are (tuiState viewOf).
 */
function conversations(rows: readonly Row[], listed: readonly Listed[], self: string): NavItem[] {
  const last = new Map<string, NavItem>();
  for (const r of rows) {
    if (r.ctx === null) continue;
    last.delete(r.ctx);
    last.set(r.ctx, { ctx: r.ctx, last: r.text, ...(r.by ? { by: r.by } : {}) });
  }
  const items = [...last.values()].reverse();
  for (const c of listed) {
    const { ctx, by } = viewOf({ ...c }, self);
    if (ctx !== null && !last.has(ctx)) items.push({ ctx, last: '', ...(by ? { by } : {}) });
  }
  return items;
}

/** The stored conversations, read once when the chat opens. */
function useListed(): Listed[] {
  const [listed, setListed] = useState<Listed[]>([]);
  useEffect(() => {
    listConversations().then(setListed, () => {});
  }, []);
  return listed;
}

const MARK: Record<Row['kind'], string> = { user: '▌', agent: '●', tool: '⚙', question: '?', note: '·', error: '✗' };

function Transcript({ rows }: { rows: readonly Row[] }) {
  return (
    <ol class="transcript" aria-label="Transcript" aria-live="polite">
      {rows.map((r) => (
        <li key={r.key} class={`row ${r.kind}`}>
          <span class="mark" aria-hidden="true">
            {MARK[r.kind]}
          </span>
          {r.by && <span class="by">{r.by}</span>}
          {r.kind === 'tool' ? (
            <details class="card">
              <summary>{r.text}</summary>
              <pre>{r.detail}</pre>
            </details>
          ) : (
            <span class="text">{r.text}</span>
          )}
        </li>
      ))}
    </ol>
  );
}

function QuestionForm({ q, onError }: { q: Question; onError(why: string): void }) {
  const [text, setText] = useState('');
  const answer = (value: string) => sendText(value, { taskId: q.task }).catch((e: Error) => onError(e.message));
  return (
    <section class="question" aria-label="Question">
      {q.options ? (
        <fieldset>
          <legend>{q.text}</legend>
          {q.options.map((option, i) => (
            <button type="button" key={option} onClick={() => answer(q.values?.[i] ?? option)}>
              {option}
            </button>
          ))}
        </fieldset>
      ) : (
        <form
          aria-label={q.text}
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim()) answer(text.trim()).then(() => setText(''));
          }}
        >
          <label for="answer">{q.text}</label>
          <input id="answer" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          <button type="submit">Answer</button>
        </form>
      )}
    </section>
  );
}

function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

function Composer({
  ctx,
  onSent,
  onError,
}: {
  ctx: string | null;
  onSent(ctx: string): void;
  onError(w: string): void;
}) {
  const [text, setText] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    const message = text.trim();
    if (!message) return;
    sendText(message, { contextId: ctx }).then(
      (task) => {
        setText('');
        onSent(task.contextId);
      },
      (err: Error) => onError(err.message),
    );
  };
  return (
    <form class="composer" onSubmit={submit}>
      <label for="message" class="visually-hidden">
        Message
      </label>
      <input
        id="message"
        placeholder="Message the agent"
        autocomplete="off"
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
      />
      <button type="submit">Send</button>
    </form>
  );
}

/**
 * Opens a conversation with its stored messages: at start the one the address names, else the caller's most recent
 * one (`latest`, interfaces §1.8), then whichever is chosen. An answer that comes after the user chose another view
 * only adds its messages. `onView` tells the address bar (a deep link, /ui/c/<context>).
 */
function useConversation(
  onHistory: (ctx: string, h: History) => void,
  initial: string | undefined,
  onView: (ctx: string | null, replace: boolean) => void,
) {
  const [ctx, setCtx] = useState<string | null>(null);
  const views = useRef(new ViewRequests()).current;
  const open = (which: string | null, replace = false) => {
    const tag = views.next();
    if (which !== 'latest') {
      setCtx(which);
      onView(which, replace);
    }
    if (which === null) return;
    history(which).then(
      (h) => {
        if (h.contextId === null) return;
        onHistory(h.contextId, h);
        if (!views.current(tag)) return;
        setCtx(h.contextId);
        if (which === 'latest') onView(h.contextId, true);
      },
      () => {},
    );
  };
  // Back and forward (or a link) name another conversation: open it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of the address opens another view.
  useEffect(() => {
    if (views.current(0) || (initial !== undefined && initial !== ctx)) open(initial ?? 'latest', true);
  }, [initial]);
  const sent = (to: string) => {
    views.next();
    setCtx(to);
    onView(to, false);
  };
  return { ctx, open, sent };
}

export function ChatView({
  state,
  who,
  onHistory,
  initial,
  onView,
}: {
  state: TuiState;
  who: Who;
  onHistory(ctx: string, h: History): void;
  /** The conversation the address names (/ui/c/<context>); undefined = the most recent one. */
  initial?: string | undefined;
  onView(ctx: string | null, replace: boolean): void;
}) {
  const { ctx, open, sent } = useConversation(onHistory, initial, onView);
  const [error, setError] = useState<string | null>(null);
  const now = useNow(1_000);
  const listed = useListed();
  const list = conversations(state.rows, listed, who.principal);
  const rows = ctx === null ? [] : state.rows.filter((r) => r.ctx === ctx);
  const running = Object.entries(state.active).filter(([, c]) => ctx !== null && c === ctx);
  const here = (unit: string | undefined) =>
    unit !== undefined && (state.active[unit] ?? state.turns?.[unit]) === ctx && ctx !== null;
  const question = state.question && state.question.ctx === ctx ? state.question : null;
  const mine = workingIn(state, here);
  const working = mine || question ? workingLine({ ...state, working: mine }, now) : null;
  return (
    <div class="chat">
      <nav class="conversations" aria-label="Conversations">
        <button type="button" onClick={() => open(null)} aria-pressed={ctx === null}>
          + New conversation
        </button>
        <ul>
          {list.map((c) => (
            <li key={c.ctx}>
              <button type="button" aria-pressed={ctx === c.ctx} onClick={() => open(c.ctx)} title={c.ctx}>
                {c.by && <span class="by">{c.by}</span>} <span class="ctx">{c.ctx.slice(-8)}</span>{' '}
                <span class="last">{c.last.slice(0, 60)}</span>
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main class="conversation" aria-label="Conversation">
        <header class="conversation-head">
          {goalLine(state, ctx) && (
            <p class="goal" role="status" aria-label="Goal">
              {goalLine(state, ctx)}
            </p>
          )}
          {ctx !== null && state.plans[ctx] && <p class="plan">Plan: {state.plans[ctx]}</p>}
        </header>
        <Transcript rows={rows} />
        {working && (
          <p class="working" role="status">
            ⠿ {working}
          </p>
        )}
        {running.map(([task]) => (
          <ConfirmButton
            class="cancel"
            key={task}
            label={`Cancel task ${task.slice(-8)}`}
            question={`Cancel task ${task.slice(-8)}? Its turn stops now.`}
            yes="Yes, cancel"
            no="Keep running"
            onConfirm={() => cancelTask(task).catch((e: Error) => setError(e.message))}
          />
        ))}
        {question && <QuestionForm q={question} onError={setError} />}
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <Composer ctx={ctx} onSent={sent} onError={setError} />
      </main>
    </div>
  );
}
