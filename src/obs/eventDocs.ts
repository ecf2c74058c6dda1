// What each declared event means (reference §20): when it is written and its fields, one line per event or group
// `names :: when :: fields`. docs/reference/events.md is rendered from these sections (eventReference.ts) and a
// test fails when a declared name has no line. The producers' sections are in eventDocsProducers.ts.
import type { EventName } from './events.js';

/** One row of the event reference: the events it covers, when they are written, and their fields. */
export interface EventDoc {
  events: EventName[];
  when: string;
  fields: string;
}

export interface EventSection {
  title: string;
  rows: EventDoc[];
}

/** Parses `names :: when :: fields` lines (names split on ` / `); a malformed line throws at load. */
export function eventSection(title: string, text: string): EventSection {
  const rows = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [names, when, fields, ...rest] = line.split(' :: ');
      if (names === undefined || when === undefined || fields === undefined || rest.length > 0)
        throw new Error(`event docs "${title}": expected "names :: when :: fields" in ${JSON.stringify(line)}`);
      return { events: names.trim().split(' / ') as EventName[], when, fields };
    });
  return { title, rows };
}

const PROCESS = eventSection(
  'Process, store and replicas',
  `
proc.ready :: the runtime is up: store restored, listeners and producers started :: instance, generation, pending, producers
proc.exit :: a second stop signal ends the process at once (warn) :: code, signal, forced
store.opened :: the store is open :: kind, path, generation
store.checked :: the integrity check of an existing store file ran at open (see \`store.integrity_check\`) :: mode: quick | full, ms
store.none :: a job that names no store runs on the memory store (see [Running a job](../guide/job.md#running-a-job)) :: \`durable, name_one_with\` (left out for an explicit \`store.kind: memory\`)
store.default_ignored :: a job that names no store found \`./.agentd/agentd.db\` and does not use it (warn) :: path, durable, use
restore.done :: start-up restore finished :: generation, pending, conversations
store.commit.fail :: the store refused an accept's commit (disk full, an I/O error); the sender got \`-31503\` :: key, err
store.checkpoint.fail :: the store refused a fold (once per fold) or a conversation checkpoint (once per conversation until it commits again; retried on the fold backoff, not every step) :: ctx, inbox_event?, err
store.checkpoint.retry :: a refused fold's commit is tried again after \`delay_ms\` (debug) :: ctx, inbox_event, attempt, delay_ms
store.checkpoint.recovered :: a conversation commits again after refused checkpoints :: ctx, attempts
store.conversation.loaded :: a conversation came into memory from the store (debug) :: ctx, messages
store.conversations.evicted :: idle conversations left memory past \`store.conversation_cache\` (debug) :: count, resident
store.connection_lost :: (postgres) an idle pooled connection dropped; the pool reconnects on the next call :: error
store.fenced :: (postgres, warn) a write for a conversation this replica no longer holds was refused, or (\`run\`) a save of a workflow run another replica took over :: ctx or run, epoch, current_epoch, replica
lease.acquired / lease.adopted :: (postgres) this replica took a conversation's lease, or (\`run\`) a live workflow run nobody owned live (\`adopted\`: from an expired holder, epoch > 1) :: ctx or run, epoch, replica
lease.lost :: (postgres) this replica no longer holds the conversation: another replica holds it (found by the claim or by a fenced write), its hold ran out unrenewed, or the claim released it idle; with \`run\`: a workflow run the heartbeat found owned by another replica :: ctx or run, epoch, replica
lease.released :: (postgres) a workflow run this replica claimed but failed to start driving (its restore threw) was given back: its row names no owner, and the next claim (any replica's) takes it :: run, epoch, replica
lease.work_stopped :: (postgres) after a lost lease: the conversation's jobs here were stopped (a running worker's process group killed, waiting ones dropped) and its copy forgotten; \`inbox_event\`: a fold the fence refused; with \`run\`: a workflow run whose save was fenced is no longer driven here (its in-flight steps aborted) :: ctx or run, jobs?, inbox_event?
tool.journal_hit :: (worker) an MCP call of a rerun was answered from the tool journal, not sent again :: key, tool
store.journal_pruned :: tool journal entries of finished turns older than \`store.journal_retain\` were removed :: entries
lease.notify :: (postgres) another replica's NOTIFY woke this one: new pending work (\`inbox\`, claimed at once rather than at the next sweep) or a cancel request (\`cancel\`) :: channel, lag_ms
lease.cancel_requested :: (postgres) a cancel for a task whose turn another replica runs was stored for its lease holder (\`cancel_requests\`, then NOTIFY), or one for a workflow run another replica runs (\`run_cancel_requests\`) :: task (a turn's) or run (a workflow run's)
tool.journal_fail :: (warn) the tool journal could not be read or written (the call runs, or its record is lost) :: ctx, key, err
inbox.lease.claimed / inbox.lease.fail :: the inbox lease claimed pending messages (another replica's expired ones included) / a claim failed (warn; tried again on the next tick) :: \`events\` / \`err\`
drain.start / drain.done :: SIGTERM / SIGINT, the operator's \`drain\`, or \`finish {exit: true}\` (\`reason: "exit"\`) :: \`reason, live, queued\` / \`abandoned\`
agent.paused / agent.resumed :: the operator's \`pause\` / \`resume\`: no turn starts while paused :: \`queued, live\` / \`queued\`
`,
);

const INBOX = eventSection(
  'Inbox and producers',
  `
inbox.accepted :: a message is durable (\`kind\`: its producer's, see [CONTRIBUTING](../../CONTRIBUTING.md)) :: inbox_event, kind, ctx
inbox.duplicate :: a message whose id was accepted before: the first acceptance stands :: inbox_event, status, ctx
inbox.accept.fail :: a producer's accept threw (a subagent's result, a side task) (error) :: ctx, err, …
producer.started / producer.failed :: a producer started (debug) / failed to start or stop :: producer, err?
job.refused :: a job event did not apply in the job's state (debug; a late cancel, a staging result after a cancel) :: inbox_event, state, event, reason
prompt.skipped :: the startup prompt was accepted by an earlier run :: inbox_event, reason: pending | answered
prompt.reject :: the startup prompt could not be accepted (the job exits with the error's code) :: ctx, err
message.delivered :: \`message.send\` delivered :: from, to, depth, inbox_event
message.refused :: a \`message.send\` delivery was refused before it was accepted (another principal's conversation, or one that does not exist yet, from a user's turn) :: from, to, principal, reason
wake.note :: a wake note was appended :: ctx, chars
`,
);

const TURNS = eventSection(
  'Turns and workers',
  `
turn.spawn :: a worker starts a turn :: ctx, node, worker_pid, turn, inbox_event
turn.spawn.fail :: a turn's worker could not be started; the turn fails (error) :: ctx?, inbox_event, err
turn.spawn_retry :: a worker spawn failed for lack of resources; the message stays pending and is admitted again after \`delay_ms\` :: ctx, inbox_event, attempt, delay_ms, code
spare.spawn_fail :: starting a spare worker threw (\`ENOMEM\`, \`EAGAIN\`, …); the pool tries again after \`retry_in_ms\` (doubling to 5 s), turns still start fresh workers :: code, err, retry_in_ms
turn.refused.not_owner :: a turn was not launched: its principal may not use the conversation (warn) :: ctx, principal, reason
loop.start :: a worker took its spawn frame (worker side) :: turn, kind
loop.error :: an unexpected error: a reactor tick or staging threw, a child's frame broke the protocol, or (worker side) a worker crashed or lost its supervisor channel :: err, node?, ctx?, kind?
loop.paused / loop.resumed :: a worker's turn was paused / resumed by the operator (worker side) :: —
turn.start :: a worker started a turn's round loop (worker side) :: turn, …
turn.round / turn.think / turn.tool :: a round ended / a model call began / a tool call began: the worker's progress reports, which the client feed shows as activity (\`turn.round\` is also a debug line) :: turn, round?, tool?, i?, of?
tool.park / tool.unpark :: a tool call waits on something outside the worker (a person, a subagent) / stops waiting :: turn, tool
turn.reask / intel.retry :: the model is asked again (a structured answer that did not parse, a wrap-up check) / a model call is retried after a transient error (warn; worker side) :: \`turn, reason\` / \`endpoint, delay_ms, …\`
turn.budget_wait / turn.model_degraded :: a model call waits for budget / runs on the budget's degraded model (worker side) :: \`turn, wait_ms\` / \`turn, from, to\`
turn.wrapup :: a wrap-up check acted on an answer with no tool calls :: turn, check: length | reasoning | empty | truncated_args, attempt, action
turn.done :: a turn ended (supervisor and worker each log one) :: ctx, turn, status, rounds, tool_calls, tokens, err?
turn.reply :: a reply was recorded :: ctx, chars, deterministic?, text?
turn.failed :: a worker ended without a result :: ctx, node, err
turn.kill :: the supervisor killed a worker's process group :: node, kind, ctx, worker_pid, reason
child.exit :: a worker process exited (\`kind\`: \`turn\`, \`preflight\`, \`compaction\`, \`think\`, \`decide\`), or with \`idle: true\` finished its turn and went back to the pool :: \`node, worker_pid, kind, ctx, code, signal, spawn_error\` (the errno name when the process never started, e.g. \`EMFILE\`; else null), \`idle\`
worker.recycle :: a worker that went idle is replaced instead of reused (debug) :: node, kind, ctx, worker_pid, reason
child.unhealthy :: the watchdog found a worker or spare unhealthy (it is then cancelled and killed) :: node, kind, ctx, worker_pid, health: stuck | no_progress | deadline_exceeded, detail
think.spawn / think.done :: a think child (think, decide, preflight) :: ctx, purpose, status?
activity / activity.removed :: a running turn's or subagent's activity changed (what the client feed and TUI show), or a step began or ended in a workflow run a conversation started (\`run, workflow, step, kind, status, attempt\`) / its entry went away (debug) :: node, ctx, …
fold.after.fail :: work after a fold's commit (steering, goal facts) threw; the fold stands (error) :: ctx?, inbox_event?, err
root.finish :: the model called \`finish\` (with \`exit: true\` a daemon then drains and exits) :: ctx, status, exit, job_shape
finish.exit :: a daemon's \`finish {exit: true}\` was refused: the turn was not the operator's (warn) :: ctx, inbox_event, refused
intel.health / intel.fallback :: an endpoint's breaker changed / a model's fallback took the call :: \`endpoint, state\` / \`from, to\`
`,
);

const TOOLS = eventSection(
  'Tools and MCP',
  `
tool.request :: an internal tool call reached the supervisor :: node, req, tool, ctx, turn
tool.reply :: a tool_result was sent to the worker (debug) :: node, req, tool, is_error
tool.call / tool.result :: a tool call started / ended (worker side) :: \`turn, tool, id\` / \`turn, tool, is_error, ms\`
tool.result.schema :: a tool's result did not match its declared output schema (warn; the result is passed on) :: tool, ctx, explain
tool.policy :: a permission verdict :: tool, rule, action, ctx
registry.warning :: the tool registry found a problem it works around (a name clash, a bad schema) (warn) :: warning
mcp.listed / mcp.tools_changed / mcp.unreachable :: MCP server tools listed / re-listed / unreachable :: server, tools, transport?, err?
mcp.closed :: a reload removed (or changed) an MCP server; its connection closed :: server
plan.updated :: a plan changed (op auto: a bound subagent ended) :: ctx, op, progress, subagent
`,
);

const BEFORE = eventSection(
  'Before the turn: preflight, routing, knowledge, skills, the prompt',
  `
preflight.start / preflight.verdict :: a message is triaged / its verdict :: \`ctx, inbox_event, worker_pid, model\` / \`ctx, intent, needs_plan, risk, skills, route\`
preflight.failed / preflight.spawn_fail :: no verdict: the child failed or was unsure / could not start :: ctx, status, err
preflight.skills_unknown / preflight.route_unsure :: a verdict named skills not in the catalogue / a route under the confidence :: \`ctx, skills\` / \`ctx\`
turn.routed / turn.route_removed :: the turn runs on a route's model / its route is gone, roles.turn instead :: ctx, route, model?
knowledge.auto_context :: the knowledge search for a message finished :: ctx, hit, hits, bytes, err?
skills.listed :: a skill source listed its prompts and resources :: server, skills, err?
skill.loaded / skill.unknown / skill.load.refused / skill.unloaded :: a skill changed on a conversation :: ctx, skill, reason
instruction.file :: an instruction file could not be read at start :: path, err
prompt.render.fail / prompt.builtin.fail :: \`context.template\` failed (the built-in is used) / even the built-in did :: ctx, err
`,
);

const OPERATIONS = eventSection(
  'Budgets, compaction, configuration, pressure, metrics and traces',
  `
budget.wait / budget.degraded / budget.refused :: dispatch admission deferred / degraded / refused a turn :: \`ctx, inbox_event, until_ms, reason\` / \`ctx, model\` / \`ctx, inbox_event, reason\`
context.compaction.start / context.compacted :: a compaction started / applied :: \`ctx, fold, version\` / \`ctx, folded, version, before, after, clipped?, fallback?\`
context.compaction.spawn_fail / context.compaction.think_failed / context.compaction.apply_fail :: the summarizer could not help (the fallback follows) :: ctx, err
config.reloaded :: a reload was applied :: \`source, generation, changed\` (key paths, never values)
config.reload.invalid / config.reload.restart_required / config.reload.unchanged :: a reload was refused (running config stays) / found nothing to do :: \`source, generation, error\` / \`paths\`
config.reload.stopping :: a reload asked for after a stop started was refused :: source, generation
config.watch.failed :: \`--watch-config\` cannot watch a config file's folder :: dir, err
pressure.shed / pressure.warn / pressure.cleared :: the pressure level changed (logged once per transition) :: level, cause: disk | memory, disk_free_bytes, min_free
pressure.probe_failed :: a pressure reading failed (the last level stays; logged once per run of failures) :: err
metrics.listen :: the metrics listener is up :: addr
trace.export_failed :: the trace collector did not take the spans (down or silent); logged once, no turn or stop waits on it :: err
worker.stderr :: a worker wrote a line to stderr that is not one of its events (a Node warning, a crash report, an MCP server's inherited stderr); cut to 2,000 characters and redacted. A worker's own event lines are re-emitted as they are :: worker_pid, line
`,
);

/** The runtime's sections of the event reference, in page order. */
export const RUNTIME_EVENT_SECTIONS: readonly EventSection[] = [PROCESS, INBOX, TURNS, TOOLS, BEFORE, OPERATIONS];
