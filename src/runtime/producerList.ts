// Every producer the runtime can start, one registration line each, in start order (stopped in reverse).
// A factory reads its own config keys and returns null when they leave it off.
import { a2aProducer } from '../a2a/a2aProducer.js';
import type { ProducerFactory } from './producer.js';
import { startupPrompt } from './startupPrompt.js';

export const PRODUCERS: readonly ProducerFactory[] = [
  a2aProducer, // a2a.listen: callers' messages as a2a_message events
  startupPrompt, // agent.prompt / --prompt: one startup_prompt event per store
];
