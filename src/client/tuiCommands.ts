// What the terminal UI does with a submitted line (issue 18 item 3): a slash command, an answer to the open
// question (a number picks a choice), or a message to the conversation in view. Talks to the daemon only through
// DaemonClient; reports back as rows and view changes.
import { type DaemonClient, DaemonClientError, stateName } from './daemonClient.js';
import { statusLines } from './statusLines.js';
import { runningTask, type TuiState, viewOf } from './tuiState.js';

export interface Submitted {
  /** A local note to show (a command's result or an error). */
  note?: string;
  error?: boolean;
  /** The conversation to view from now on (a send opened one, or /conversation switched). */
  ctx?: string | null;
  /** A conversation whose stored messages to load into the view (/conversation ID). */
  open?: string;
  /** Sends the next messages in plan mode (/plan) or not (/execute). */
  plan?: boolean;
  quit?: boolean;
}

export const SLASH_HELP =
  '/cancel /plan /execute /goal [TEXT|clear] /pause /resume /status /conversation [ID|latest|new] /new /quit · Tab: expand tool cards · PgUp/PgDn: scroll';

/** Runs one submitted line; never throws (a daemon error becomes an error note). */
export async function submitLine(
  client: DaemonClient,
  state: TuiState,
  line: string,
  plan: boolean,
): Promise<Submitted> {
  const text = line.trim();
  if (text === '') return {};
  try {
    if (text.startsWith('/')) return await slash(client, state, text);
    const q = state.question;
    if (q) {
      const picked = /^\d+$/.test(text) && q.options ? q.values?.[Number(text) - 1] : undefined;
      await client.answer(q.task, picked ?? text);
      return {};
    }
    const task = await client.send(text, { wait: false, plan, ...(state.ctx ? { contextId: state.ctx } : {}) });
    return { ctx: task.contextId };
  } catch (err) {
    const code = err instanceof DaemonClientError && typeof err.code === 'number' ? ` (${err.code})` : '';
    return { note: `${err instanceof Error ? err.message : String(err)}${code}`, error: true };
  }
}

async function slash(client: DaemonClient, state: TuiState, text: string): Promise<Submitted> {
  const [cmd = '', ...rest] = text.split(/\s+/);
  const arg = rest.join(' ');
  const ctx = state.ctx ?? undefined;
  switch (cmd) {
    case '/quit':
    case '/exit':
      return { quit: true };
    case '/cancel': {
      const id = arg || runningTask(state);
      if (!id) return { note: 'nothing to cancel' };
      const task = await client.cancel(id);
      return { note: `task ${task.id} ${stateName(task)}` };
    }
    case '/plan':
    case '/execute': {
      const mode = cmd === '/plan' ? 'plan' : 'execute';
      if (ctx) await client.command('mode', { mode }, ctx);
      return { plan: mode === 'plan', note: `${mode} mode` };
    }
    case '/goal':
      return goal(client, arg, ctx ?? 'root');
    case '/pause':
    case '/resume':
      await client.command(cmd.slice(1));
      return { note: cmd === '/pause' ? 'agentd paused' : 'agentd resumed' };
    case '/conversation': {
      if (arg === 'new') return { ctx: null, note: 'new conversation: the next message starts one' };
      if (arg) return { ...(arg === 'latest' ? {} : { ctx: arg }), open: arg, note: `conversation ${arg}` };
      return { note: await listed(client) };
    }
    case '/new':
      return { ctx: null, note: 'new conversation: the next message starts one' };
    case '/status': {
      // The daemon's status as `agentd status` prints it: workers, runs, budget, timers, next firings.
      const doc = (await client.command('status')) as Record<string, unknown>;
      return { note: statusLines(doc).join('\n') };
    }
    case '/help':
      return { note: SLASH_HELP };
    default:
      return { note: `unknown command ${cmd}; ${SLASH_HELP}`, error: true };
  }
}

async function goal(client: DaemonClient, arg: string, ctx: string): Promise<Submitted> {
  if (arg === '') {
    const got = (await client.command('goal.get', {}, ctx)) as {
      goal?: { objective?: string; status?: string } | null;
    };
    return { note: got.goal ? `goal: ${got.goal.objective} (${got.goal.status ?? 'active'})` : 'no goal' };
  }
  if (arg === 'clear') {
    await client.command('goal.clear', {}, ctx);
    return { note: 'goal cleared' };
  }
  await client.command('goal.set', { objective: arg }, ctx);
  return { note: `goal set: ${arg}` };
}

/** How many conversations `/conversation` lists (the newest ids last; `conversation.list` pages the rest). */
const LISTED = 50;

/** The stored conversations the caller may open, named as `/conversation ID` opens them (another's labelled). */
async function listed(client: DaemonClient): Promise<string> {
  const page = await client.conversations({ limit: LISTED });
  const names = page.conversations.map((c) => {
    const { ctx, by } = viewOf({ ...c }, page.you.principal);
    return by === undefined ? ctx : `${ctx} [${by}]`;
  });
  const more = page.next === null ? '' : ' …';
  return names.length ? `conversations: ${names.join(', ')}${more}` : 'no conversations yet';
}
