// The terminal UI's frame (issue 18 item 3): header (who the daemon is, the connection, the view's conversation,
// plan mode, pause, goal, budget, plan checklist), the transcript window, the working row, a question's choices, a
// confirmation, the composer. Renders state only; keys and I/O live in tuiApp.ts.
import { Box, Text } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import { type Pending, promptFor } from './tuiKeys.js';
import { budgetLine, goalLine, planLine, type Row, type TuiState, visibleRows, workingLine } from './tuiState.js';

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

export interface FrameInput {
  draft: string;
  /** Plan mode of the conversation in view. */
  plan: boolean;
  now: number;
  /** Transcript rows that fit. */
  height: number;
  /** A confirmation being asked (Esc, Ctrl+C). */
  pending: Pending | null;
}

/** The header's first items: `<card name> 0.1.0 @<instance>` once the daemon said who it is (the instance only when
 * the card names the agent otherwise), else `agentd`. */
function identityText(state: TuiState): string {
  const id = state.identity;
  if (!id) return 'agentd';
  return `${id.name} ${id.version}${id.instance && id.instance !== id.name ? ` @${id.instance}` : ''}`;
}

export function frame(state: TuiState, v: FrameInput): ReactElement {
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
    planLine(state),
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
      h(Text, { bold: true }, identityText(state)),
      link,
      h(Text, { dimColor: true }, chrome.filter(Boolean).join(' · ')),
    ),
    state.scroll > 0 ? h(Text, { dimColor: true }, `↑ ${state.scroll} rows back · PgDn to follow`) : null,
    h(Box, { flexDirection: 'column' }, ...shown),
    working ? h(Text, { color: 'yellow' }, `⠿ ${working}`) : null,
    choices ? h(Text, { color: 'yellow' }, `${choices}   (number + Enter, or type a reply)`) : null,
    v.pending ? h(Text, { color: 'magenta', bold: true }, promptFor(v.pending)) : null,
    h(Text, null, `› ${v.draft}`),
  );
}
