// When a message is triaged before its turn (reference §6.1): the `auto` heuristic and the two fixed modes.
// Pure: the message text, the conversation's plan and the mode in, a yes or no out.

import type { PreflightMode } from '../config/types.js';
import { isPlanComplete } from '../context/render.js';
import type { Plan } from '../domain/plan.js';

/** A message longer than this many characters (Unicode scalar values) is preflighted under `auto`. */
export const PREFLIGHT_LENGTH = 280;

/** Work stems matched as substrings of the ASCII-lowercased text; `run ` and `start ` keep their trailing space. */
export const WORK_STEMS: readonly string[] = [
  'implement',
  'build',
  'create',
  'fix',
  'deploy',
  'investigate',
  'write',
  'run ',
  'analy',
  'refactor',
  'migrate',
  'plan',
  'set up',
  'setup',
  'configure',
  'generate',
  'review',
  'compare',
  'research',
  'schedule',
  'start ',
];

/** ASCII letters only, so a non-ASCII letter never turns into an ASCII stem. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Whether preflight runs for `text`: never for blank text or mode `never`; always under `always`; under `auto`
 * when the text is longer than 280 characters, contains a work stem, or the conversation's plan is unfinished.
 */
export function needsPreflight(text: string, plan: Plan | null, mode: PreflightMode): boolean {
  if (mode === 'never' || text.trim() === '') return false;
  if (mode === 'always') return true;
  if ([...text].length > PREFLIGHT_LENGTH) return true;
  const lower = asciiLower(text);
  if (WORK_STEMS.some((stem) => lower.includes(stem))) return true;
  return plan !== null && !isPlanComplete(plan);
}
