// The terminal UI (issue 18 item 3), built with Ink and React (lazy-loaded by `agentd tui` only): header with the
// connection indicator, pause, goal and plan state; the transcript with tool cards; the working row; the question's
// choices; the composer. State lives in tuiState.ts (pure); lines go to tuiCommands.ts.
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { createElement as h, type ReactElement, useEffect, useReducer, useRef, useState } from 'react';
import type { DaemonClient, FeedMessage, History } from './daemonClient.js';
import { submitLine } from './tuiCommands.js';
import {
  addRow,
  applyFeed,
  budgetLine,
  goalLine,
  initialState,
  type Row,
  type TuiState,
  ViewRequests,
  visibleRows,
  withGoal,
  withHistory,
  workingLine,
} from './tuiState.js';

type Action =
  | { type: 'feed'; event: FeedMessage }
  | { type: 'connection'; up: boolean; why?: string }
  | { type: 'note'; text: string; error?: boolean }
  | { type: 'history'; ctx: string; messages: History['messages']; goal: History['goal'] }
  | { type: 'self'; principal: string }
  | { type: 'view'; ctx?: string | null; expanded?: boolean; scroll?: number };

let notes = 0;

function reduce(state: TuiState, a: Action): TuiState {
  switch (a.type) {
    case 'feed':
      return applyFeed(state, a.event);
    case 'connection':
      return {
        ...state,
        connection: { up: a.up, ever: state.connection.ever || a.up, ...(a.why ? { why: a.why } : {}) },
      };
    case 'note':
      return addRow(state, { key: `note:${++notes}`, kind: a.error ? 'error' : 'note', ctx: null, text: a.text });
    case 'self':
      return { ...state, self: a.principal };
    case 'history':
      return { ...withGoal(withHistory(state, a.ctx, a.messages), a.ctx, a.goal), ctx: a.ctx, scroll: 0 };
    case 'view':
      return {
        ...state,
        ...(a.ctx !== undefined ? { ctx: a.ctx, scroll: 0 } : {}),
        ...(a.expanded !== undefined ? { expanded: a.expanded } : {}),
        ...(a.scroll !== undefined ? { scroll: Math.max(0, a.scroll) } : {}),
      };
  }
}

const MARK: Record<Row['kind'], string> = { user: '▌', agent: '●', tool: '⚙', question: '?', note: '·', error: '✗' };
const COLOR: Partial<Record<Row['kind'], string>> = { agent: 'green', tool: 'cyan', question: 'yellow', error: 'red' };

function rowLines(row: Row, expanded: boolean): ReactElement[] {
  const line = h(
    Text,
    { key: row.key, color: COLOR[row.kind], dimColor: row.kind === 'note' },
    `${MARK[row.kind]} ${row.by ? `[${row.by}] ` : ''}${row.text}`,
  );
  if (!expanded || !row.detail) return [line];
  return [line, h(Text, { key: `${row.key}:d`, dimColor: true }, `   ${row.detail.replaceAll('\n', '\n   ')}`)];
}

export interface TuiProps {
  client: DaemonClient;
  /** The conversation to open: `latest` (the caller's most recent one), `new`, or a context id. */
  open: string;
  onQuit(): void;
}

/** How many stored messages a conversation opens with. */
const HISTORY_MESSAGES = 100;

/** Opens a conversation in the view with its stored messages (`latest`: the caller's newest one, if any). */
function openConversation(
  client: DaemonClient,
  which: string,
  dispatch: (a: Action) => void,
  views: ViewRequests,
): void {
  const request = views.next();
  if (which === 'new') return;
  client.history(which, HISTORY_MESSAGES).then(
    (h) => {
      if (views.current(request) && h.contextId !== null) {
        dispatch({ type: 'history', ctx: h.contextId, messages: h.messages, goal: h.goal });
      }
    },
    (err: unknown) => {
      if (!views.current(request)) return;
      // A context id the daemon does not know yet is a conversation the first message starts.
      const text = err instanceof Error ? err.message : String(err);
      dispatch({ type: 'note', text: /not found/.test(text) ? `new conversation ${which}` : text });
    },
  );
}

/** Follows the feed into the view (reconnecting by itself) and ticks the clock for the working row's elapsed time. */
function useFeed(client: DaemonClient, dispatch: (a: Action) => void): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const stop = new AbortController();
    void client
      .feed(
        {
          onEvent: (event) => dispatch({ type: 'feed', event }),
          onConnection: (up, why) => dispatch({ type: 'connection', up, ...(why ? { why } : {}) }),
        },
        // From now on: a conversation's past comes from its stored messages (openConversation), not a feed replay.
        { since: 'latest', signal: stop.signal },
      )
      .catch((err: unknown) => dispatch({ type: 'connection', up: false, why: String(err) }));
    const tick = setInterval(() => setNow(Date.now()), 1_000);
    return () => {
      stop.abort();
      clearInterval(tick);
    };
  }, [client, dispatch]);
  return now;
}

/** The draft being typed. Keys can arrive faster than React renders (text, then Enter): it is kept in a ref. */
function useDraft(): { draft: string; typed: { current: string }; setDraft(next: string): void } {
  const [draft, setDraftView] = useState('');
  const typed = useRef('');
  const setDraft = (next: string): void => {
    typed.current = next;
    setDraftView(next);
  };
  return { draft, typed, setDraft };
}

export function TuiApp({ client, open, onQuit }: TuiProps): ReactElement {
  const [state, dispatch] = useReducer(reduce, open === 'latest' || open === 'new' ? null : open, initialState);
  const { draft, typed, setDraft } = useDraft();
  const current = useRef(state);
  current.current = state;
  const [plan, setPlan] = useState(false);
  const now = useFeed(client, dispatch);
  // Once the daemon first answers (it may start after the TUI), not before: its stored messages come with it.
  const reached = state.connection.ever;
  // A history answer that comes after the user chose another view is dropped (ViewRequests).
  const views = useRef(new ViewRequests()).current;
  useEffect(() => {
    if (!reached) return;
    openConversation(client, open, dispatch, views);
    // Who the TUI signed in as: another principal's rows are keyed and labelled as theirs (tuiState viewOf).
    client.conversations({ limit: 1 }).then(
      (page) => dispatch({ type: 'self', principal: page.you.principal }),
      () => {},
    );
  }, [client, open, reached, views]);
  const app = useApp();
  const { stdout } = useStdout();
  const quit = (): void => {
    onQuit();
    app.exit();
  };
  const submit = (line: string): void => {
    void submitLine(client, current.current, line, plan).then((done) => {
      if (done.quit) return quit();
      if (done.plan !== undefined) setPlan(done.plan);
      if (done.ctx !== undefined) {
        views.next();
        dispatch({ type: 'view', ctx: done.ctx });
      }
      if (done.open !== undefined) openConversation(client, done.open, dispatch, views);
      if (done.note) dispatch({ type: 'note', text: done.note, ...(done.error ? { error: true } : {}) });
    });
  };
  useInput((input, key) => {
    if (key.ctrl && input === 'c') return quit();
    if (key.tab) return dispatch({ type: 'view', expanded: !current.current.expanded });
    if (key.pageUp) return dispatch({ type: 'view', scroll: current.current.scroll + 10 });
    if (key.pageDown) return dispatch({ type: 'view', scroll: current.current.scroll - 10 });
    if (key.backspace || key.delete) return setDraft(typed.current.slice(0, -1));
    if (key.ctrl || key.meta) return;
    // Typed text and Enter can arrive in one chunk (a fast typist, tmux send-keys): each line break submits.
    const parts = key.return ? [input.replace(/[\r\n]+$/, ''), ''] : input.split(/\r\n?|\n/);
    let line = typed.current;
    for (const [i, part] of parts.entries()) {
      line += part;
      if (i === parts.length - 1) break;
      submit(line);
      line = '';
    }
    setDraft(line);
  });
  return view(state, { draft, plan, now, height: Math.max(5, (stdout.rows ?? 24) - 6) });
}

function view(state: TuiState, v: { draft: string; plan: boolean; now: number; height: number }): ReactElement {
  const rows = visibleRows(state);
  const end = Math.max(0, rows.length - state.scroll);
  const shown = rows.slice(Math.max(0, end - v.height), end).flatMap((r) => rowLines(r, state.expanded));
  const c = state.connection;
  const link = c.up ? h(Text, { color: 'green' }, '● live') : h(Text, { color: 'red' }, `✗ ${c.why ?? 'connecting'}`);
  const chrome = [
    state.ctx ? `#${state.ctx}` : 'all conversations',
    v.plan ? 'plan mode' : null,
    state.paused ? 'paused' : null,
    goalLine(state, state.ctx),
    budgetLine(state),
    state.plan ? `plan: ${state.plan}` : null,
  ];
  const working = workingLine(state, v.now);
  const q = state.question;
  const choices = q?.options?.map((o, i) => `${i + 1} ${o}`).join('   ');
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Box,
      { gap: 1 },
      h(Text, { bold: true }, 'agentd'),
      link,
      h(Text, { dimColor: true }, chrome.filter(Boolean).join(' · ')),
    ),
    state.scroll > 0 ? h(Text, { dimColor: true }, `↑ ${state.scroll} rows back · PgDn to follow`) : null,
    h(Box, { flexDirection: 'column' }, ...shown),
    working ? h(Text, { color: 'yellow' }, `⠿ ${working}`) : null,
    choices ? h(Text, { color: 'yellow' }, `${choices}   (number + Enter, or type a reply)`) : null,
    h(Text, null, `› ${v.draft}`),
  );
}
