// The web UI's root (issue 18 item 4): sign-in, the live feed folded by the TUI's own reducer (tuiState.ts), and
// the tabs (chat, tasks, subagents, status), each with its address (route.ts). Served by the daemon at /ui;
// bundled by scripts/build-web.mjs.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { FeedMessage } from '../feedReader.js';
import { afterReload, applyFeed, budgetLine, initialState, type TuiState, withGoal, withHistory } from '../tuiState.js';
import { ChatView } from './chat.js';
import { StatusView, TasksView } from './panels.js';
import { type Tab, useRoute } from './route.js';
import { command, type History, signIn, signOut, type Who, whoAmI } from './rpc.js';
import { type SubagentActivity, SubagentsView } from './subagents.js';

const TABS: readonly Tab[] = ['chat', 'tasks', 'subagents', 'status'];

/** A subagent's activity event (it names its `subagent`): its phase, tool and round. */
function subagentActivity(e: FeedMessage): [string, SubagentActivity] | null {
  const handle = e.data['subagent'];
  if (e.kind !== 'activity' || typeof handle !== 'string') return null;
  const { phase, tool, round } = e.data;
  const a = { phase: String(phase), tool: typeof tool === 'string' ? tool : null };
  return [handle, { ...a, round: typeof round === 'number' ? round : null }];
}

/**
 * Follows `GET /feed` from now on (`since=latest`; EventSource resumes with Last-Event-ID by itself) and folds each
 * event into the state: a conversation's past comes from its stored messages (chat.tsx), as in the TUI.
 */
function useFeed(
  self: string | null,
): [TuiState, (change: (s: TuiState) => TuiState) => void, Record<string, SubagentActivity>] {
  const [state, setState] = useState<TuiState>(() => initialState(null));
  const [subagents, setSubagents] = useState<Record<string, SubagentActivity>>({});
  useEffect(() => {
    if (self === null) return;
    setState((s) => ({ ...s, self }));
    const source = new EventSource('/feed?since=latest', { withCredentials: true });
    const connection = (up: boolean, why?: string) =>
      setState((s) => ({ ...s, connection: { up, ever: s.connection.ever || up, ...(why ? { why } : {}) } }));
    source.onopen = () => connection(true);
    source.onerror = () => connection(false, 'reconnecting…');
    source.onmessage = (e: MessageEvent<string>) => {
      const event = JSON.parse(e.data) as FeedMessage;
      const sub = subagentActivity(event);
      if (sub) setSubagents((all) => ({ ...all, [sub[0]]: sub[1] }));
      setState((s) => applyFeed(s, event));
    };
    // The cursor fell out of retention: what runs now may have changed, but the loaded history stays.
    source.addEventListener('reload', () => setState(afterReload));
    return () => source.close();
  }, [self]);
  return [state, setState, subagents];
}

/** One labelled field and its button: the token form and the pairing-code form are both this. */
function CredentialForm(props: {
  label: string;
  field: string;
  button: string;
  secret: boolean;
  onSubmit(v: string): void;
}) {
  const [value, setValue] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    props.onSubmit(value.trim());
  };
  return (
    <form onSubmit={submit} aria-label={props.button}>
      <label for={props.field}>{props.label}</label>
      <input
        id={props.field}
        {...(props.secret
          ? { type: 'password' as const, autocomplete: 'current-password' }
          : { type: 'text' as const, autocomplete: 'one-time-code' })}
        spellcheck={false}
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        required
      />
      <button type="submit">{props.button}</button>
    </form>
  );
}

function SignIn({ onSignedIn }: { onSignedIn(who: Who): void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = (credential: { token: string } | { code: string }) => {
    setError(null);
    signIn(credential).then(onSignedIn, (err: Error) => setError(err.message));
  };
  return (
    <main class="signin">
      <h1>agentd</h1>
      <CredentialForm
        label="Access token"
        field="token"
        button="Sign in"
        secret
        onSubmit={(token) => submit({ token })}
      />
      <CredentialForm
        label="Pairing code"
        field="code"
        button="Pair"
        secret={false}
        onSubmit={(code) => submit({ code })}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p class="hint">
        Sign in with one of the daemon's a2a.principals bearers, or with a one-time pairing code from `agentd pair`
        (a2a.pairing.enabled). Either is exchanged for a session cookie.
      </p>
    </main>
  );
}

function Header(props: { who: Who; tab: Tab; setTab(t: Tab): void; state: TuiState; onSignOut(): void }) {
  const { who, tab, setTab, state } = props;
  const [note, setNote] = useState<string | null>(null);
  const instance = (op: 'pause' | 'resume') =>
    command(op).then(
      () => setNote(null),
      (err: Error) => setNote(err.message),
    );
  return (
    <header>
      <span class="brand">agentd</span>
      <span class={state.connection.up ? 'live' : 'down'} role="status">
        {state.connection.up ? '● live' : `✗ ${state.connection.why ?? 'connecting…'}`}
      </span>
      {state.paused && <span class="paused">paused</span>}
      {budgetLine(state) && <span class="paused">{budgetLine(state)}</span>}
      <nav aria-label="Views">
        {TABS.map((t) => (
          <button type="button" key={t} aria-pressed={tab === t} onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </nav>
      <span class="who">{who.principal}</span>
      <button type="button" onClick={() => instance(state.paused ? 'resume' : 'pause')}>
        {state.paused ? 'Resume' : 'Pause'}
      </button>
      <button type="button" onClick={props.onSignOut}>
        Sign out
      </button>
      {note && (
        <p role="alert" class="error">
          {note}
        </p>
      )}
    </header>
  );
}

function App() {
  const [who, setWho] = useState<Who | null | undefined>(undefined);
  const [route, go] = useRoute();
  useEffect(() => {
    whoAmI().then(setWho, () => setWho(null));
  }, []);
  const [state, change, subagents] = useFeed(who ? who.principal : null);
  const onHistory = (ctx: string, h: Pick<History, 'messages' | 'goal'>) =>
    change((s) => withGoal(withHistory(s, ctx, h.messages), ctx, h.goal));
  if (who === undefined) return <p>Loading…</p>;
  if (who === null) return <SignIn onSignedIn={setWho} />;
  const out = () => signOut().then(() => setWho(null));
  const tab = route.tab;
  // The chat's address follows the conversation in view; another tab's keeps its own.
  const onView = (ctx: string | null, replace: boolean) => {
    if (route.tab === 'chat') go({ tab: 'chat', ...(ctx === null ? {} : { ctx }) }, replace);
  };
  const tick = `${state.rows.length}:${Object.keys(state.active).length}:${Object.keys(subagents).length}`;
  return (
    <div class="app">
      <Header who={who} tab={tab} setTab={(t) => go({ tab: t })} state={state} onSignOut={out} />
      {tab === 'chat' && <ChatView state={state} who={who} onHistory={onHistory} initial={route.ctx} onView={onView} />}
      {tab === 'tasks' && <TasksView state={state} />}
      {tab === 'subagents' && (
        <SubagentsView
          handle={route.handle}
          activity={subagents}
          tick={tick}
          onChoose={(handle) => go({ tab: 'subagents', handle })}
        />
      )}
      {tab === 'status' && <StatusView state={state} />}
    </div>
  );
}

const root = document.getElementById('root');
if (root) render(<App />, root);
