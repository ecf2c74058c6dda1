// The terminal UI (issue 18 item 3), built with Ink and React (lazy-loaded by `agentd tui` only): follows the feed,
// bootstraps on each connection, turns keys into decisions (tuiKeys.ts) and lines into commands (tuiCommands.ts).
// State lives in tuiState.ts (pure); the frame is drawn by tuiView.ts.
import { useApp, useInput, useStdout } from 'ink';
import { type ReactElement, useEffect, useReducer, useRef, useState } from 'react';
import type { DaemonClient, FeedMessage, History } from './daemonClient.js';
import { submitLine } from './tuiCommands.js';
import { decideKey, type Pending } from './tuiKeys.js';
import {
  addRow,
  applyFeed,
  heldView,
  type Identity,
  initialState,
  runningTask,
  type TuiState,
  ViewRequests,
  withGoal,
  withHistory,
} from './tuiState.js';
import { frame } from './tuiView.js';

type Action =
  | { type: 'feed'; event: FeedMessage }
  | { type: 'connection'; up: boolean; why?: string }
  | { type: 'note'; text: string; error?: boolean }
  | { type: 'history'; ctx: string; messages: History['messages']; goal: History['goal'] }
  | { type: 'self'; principal: string }
  | { type: 'identity'; identity: Identity }
  | { type: 'view'; ctx?: string | null; expanded?: boolean; scroll?: number };

let notes = 0;

function reduce(state: TuiState, a: Action): TuiState {
  switch (a.type) {
    case 'feed':
      return heldView(state, applyFeed(state, a.event));
    case 'connection':
      return {
        ...state,
        connection: { up: a.up, ever: state.connection.ever || a.up, ...(a.why ? { why: a.why } : {}) },
      };
    case 'note':
      return heldView(
        state,
        addRow(state, { key: `note:${++notes}`, kind: a.error ? 'error' : 'note', ctx: null, text: a.text }),
      );
    case 'self':
      return { ...state, self: a.principal };
    case 'identity':
      return { ...state, identity: a.identity };
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

/**
 * On every connection (a restarted daemon included): who the daemon is now, for the header, and the questions
 * already waiting — the feed follows from now on, so a gate opened before (a workflow's `human` step, a question
 * asked while the TUI was away) would otherwise not be shown. Rows are keyed, so a question seen twice shows once.
 */
function bootstrap(client: DaemonClient, dispatch: (a: Action) => void): void {
  Promise.all([client.card(), client.command('status')]).then(
    ([card, status]) => {
      const instance = String((status as { instance?: unknown }).instance ?? '');
      dispatch({ type: 'identity', identity: { name: card.name, version: card.version, instance } });
    },
    () => {},
  );
  client.questions().then(
    (waiting) => {
      for (const q of waiting) {
        if (q.question === null) continue;
        const data = { ...q, question: q.question };
        dispatch({ type: 'feed', event: { seq: 0, ts: Date.now(), kind: 'question', data } });
      }
    },
    () => {},
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
          onConnection: (up, why) => {
            dispatch({ type: 'connection', up, ...(why ? { why } : {}) });
            if (up) bootstrap(client, dispatch);
          },
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

/** Once the daemon first answers: the conversation to open, and who the TUI signed in as (tuiState viewOf). */
function useOpening(
  client: DaemonClient,
  open: string,
  reached: boolean,
  dispatch: (a: Action) => void,
  views: ViewRequests,
): void {
  useEffect(() => {
    if (!reached) return;
    openConversation(client, open, dispatch, views);
    client.conversations({ limit: 1 }).then(
      (page) => dispatch({ type: 'self', principal: page.you.principal }),
      () => {},
    );
  }, [client, open, reached, dispatch, views]);
}

/** A confirmation being asked (Esc, Ctrl+C): kept in a ref too, since the next key may come before a render. */
function useConfirm(): { pending: Pending | null; asking: { current: Pending | null }; ask(p: Pending | null): void } {
  const [pending, setPending] = useState<Pending | null>(null);
  const asking = useRef<Pending | null>(null);
  const ask = (p: Pending | null): void => {
    asking.current = p;
    setPending(p);
  };
  return { pending, asking, ask };
}

/** Plan mode per conversation (`''` = the view a first message opens): the key a view's mode is kept under. */
const modeKey = (ctx: string | null): string => ctx ?? '';

export function TuiApp({ client, open, onQuit }: TuiProps): ReactElement {
  const [state, dispatch] = useReducer(reduce, open === 'latest' || open === 'new' ? null : open, initialState);
  const { draft, typed, setDraft } = useDraft();
  const current = useRef(state);
  current.current = state;
  const [modes, setModes] = useState<Record<string, boolean>>({});
  const plan = modes[modeKey(state.ctx)] === true;
  const { pending, asking, ask } = useConfirm();
  const now = useFeed(client, dispatch);
  // Once the daemon first answers (it may start after the TUI), not before: its stored messages come with it.
  const reached = state.connection.ever;
  // A history answer that comes after the user chose another view is dropped (ViewRequests).
  const views = useRef(new ViewRequests()).current;
  useOpening(client, open, reached, dispatch, views);
  const app = useApp();
  const { stdout } = useStdout();
  const quit = (): void => {
    onQuit();
    app.exit();
  };
  const submit = (line: string): void => {
    const from = current.current.ctx;
    void submitLine(client, current.current, line, plan).then((done) => {
      if (done.quit) return quit();
      if (done.plan !== undefined) setModes((m) => ({ ...m, [modeKey(from)]: done.plan === true }));
      if (done.ctx !== undefined) {
        // A first message opened a conversation: the mode it was sent in is that conversation's.
        if (from === null && done.ctx !== null) setModes((m) => ({ ...m, [done.ctx as string]: m[''] === true }));
        views.next();
        dispatch({ type: 'view', ctx: done.ctx });
      }
      if (done.open !== undefined) openConversation(client, done.open, dispatch, views);
      if (done.note) dispatch({ type: 'note', text: done.note, ...(done.error ? { error: true } : {}) });
    });
  };
  const cancel = (task: string): void => submit(`/cancel ${task}`);
  useInput((input, key) => {
    const decision = decideKey(
      { input, escape: key.escape, ctrl: key.ctrl },
      asking.current,
      runningTask(current.current),
    );
    if (decision.type !== 'pass') ask(null);
    if (decision.type === 'quit') return quit();
    if (decision.type === 'cancel') return cancel(decision.task);
    if (decision.type === 'ask') return ask(decision.pending);
    if (decision.type === 'dismiss' || key.escape) return;
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
  return frame(state, { draft, plan, now, pending, height: Math.max(5, (stdout.rows ?? 24) - 7) });
}
