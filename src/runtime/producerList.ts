// Every producer the runtime can start, one registration line each, in start order (stopped in reverse).
// A factory reads its own config keys and returns null when they leave it off.
import { a2aProducer } from '../a2a/a2aProducer.js';
import { agentMessages } from '../steering/agentMessages.js';
import { goalContinuations } from '../steering/goalContinuations.js';
import { sideTasks } from '../steering/sideTasks.js';
import { wakeNotes } from '../steering/wakeNoteProducer.js';
import { subagentResults } from '../subagents/subagentProducer.js';
import { workflowProducer } from '../workflows/lazyWorkflows.js';
import { finishExit } from './finishExit.js';
import { journalRetention } from './journalRetention.js';
import type { ProducerFactory } from './producer.js';
import { startupPrompt } from './startupPrompt.js';

export const PRODUCERS: readonly ProducerFactory[] = [
  agentMessages, // message.send: deliveries as agent_message events
  sideTasks, // side.start: side_task events in a forked conversation
  goalContinuations, // an active goal at an idle boundary: goal_continuation events
  wakeNotes, // a message.send run folded: a note, or a wake_note event (on_workflow_finished: think)
  subagentResults, // a subagent ended (or a warm run did): its note in the conversation that started it
  workflowProducer, // workflow definitions and runs: once starts, workflow.* tools, run notes (engine loads lazily)
  a2aProducer, // a2a.listen: callers' messages as a2a_message events
  startupPrompt, // agent.prompt / --prompt: one startup_prompt event per store
  journalRetention, // the tool journal: finished turns' entries past store.journal_retain go
  finishExit, // a daemon: a committed finish {exit: true} drains it (accepts nothing)
];
