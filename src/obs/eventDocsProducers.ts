// What the producers' events mean: steering, A2A and the client feed, subagents, workflows, timers and triggers
// (one line per event or group, `names :: when :: fields`; see eventDocs.ts).
import { type EventSection, eventSection } from './eventDocs.js';

const STEERING = eventSection(
  'Steering: modes, goals, side tasks',
  `
mode.set / proposal :: a conversation's mode changed / a plan-mode turn proposed :: \`ctx, mode\` / \`ctx, inbox_event, chars\`
goal.set / goal.cleared :: a goal was set (with its token budget) / cleared :: ctx, token_budget?
goal.continued / goal.continuation.dropped :: a goal's next turn was queued / a queued continuation was dropped before it ran (the goal changed or ended) :: ctx, inbox_event, reason?
goal.held :: a goal's continuation waits (debug: a person's answer, a running child) :: ctx, why
goal.achieved / goal.stuck / goal.budget_limited / goal.stopped :: a goal ended: met / no progress / out of its token budget / stopped (see [Steering](../guide/steering.md#steering-a-conversation-plan-mode-goals-side-tasks)) :: ctx, turns, tokens, reason?
side.started / side.reported / side.promoted :: a side task's conversation started / reported back to its caller / was promoted to the caller's conversation :: ctx, side, status?, inbox_event?
`,
);

const A2A = eventSection(
  'A2A and the client feed',
  `
a2a.listen :: the A2A listener is up :: bound, ui
a2a.request :: the audit line of every A2A request: info when it succeeded, warn when refused, error when it failed inside the listener :: principal, method, outcome, op?, error?
a2a.task / a2a.answer.replayed :: a task changed state / an early answer reached a replayed turn :: \`task, state, principal\` / \`task\`
human.notify.fail :: a \`human\` step's \`reply_uri\` refused the notice of its question's end (warn; the end stands) :: run, task, state, error
a2a.answer.relayed :: (postgres) an answer given at another replica reached the turn waiting here :: task
a2a.answer.rejected :: a person's answer did not match its question's schema: the question stays open and is asked again, amended with \`(previous answer rejected: …)\` (the answer itself is not logged) :: task, why
a2a.quota.refused :: a principal's message was refused by one of its quotas (warn) :: quota, limit, principal, wanted, ctx
a2a.connection.shed :: connections were closed for \`a2a.max_connections\` or \`a2a.header_timeout\` (one line per burst) :: reason, shed, open
feed.append_failed :: a batch of client feed events could not be stored :: events, error
feed.deliver_failed :: the feed could not be read to give live streams the newest events (they get them at the next append or on reconnect) :: error
feed.pruned :: feed retention dropped old events and terminal tasks :: events, tasks
feed.prune_failed :: a feed retention pass failed (it runs again on the next tick) :: error
interface.paired :: a browser signed in to the web UI with a pairing code (the code itself is never logged) :: principal, role
ui.pairing_refused :: a pairing code was refused (warn: wrong, used or expired; while pairing is locked, once a minute at most) :: reason
`,
);

const SUBAGENTS = eventSection(
  'Subagents',
  `
subagent.spawn / subagent.respawn :: a subagent's worker started / at restore after a restart, an unfinished async, sync or warm subagent's worker started again (attempt + 1) :: handle, mode, node, pid, depth, attempt, priority, servers, memory_bytes, cpu_seconds
subagent.sleep :: a subagent's \`sleep\` waits on a stored timer keyed by its call; \`resumed: true\` when a respawned subagent's same call found the due time its previous life stored :: handle, due, resumed
subagent.note_waits :: replicas: a subagent's end note waits, try after try, while another replica holds its caller's conversation live (its write there would be refused) :: ctx, handle, retry_ms
subagent.orphan :: replicas: a stored unfinished subagent had no inbox row (its replica stopped between its two writes); the row was written now and a claim runs it (warn) :: handle
subagent.refused :: \`subagent.run\` was refused by a gate (depth, breadth, total, per_caller, rate, trifecta, …) :: ctx, gate, err
subagent.turn / subagent.result :: a subagent's run ended / it settled with its result :: \`handle, status, run\` / \`handle, status, tokens, err?\`
subagent.kill :: a subagent was cancelled (its worker sealed, then killed) :: handle, reason
subagent.inject :: a warm subagent took a message for its next run (worker side) :: bytes
subagent.caps :: a subagent's kernel caps (memory, niceness) were applied to its worker :: handle, …
subagent.pruned :: ended subagent records were pruned (\`subagents.keep\`, \`subagents.keep_for\`) :: count
subagent.restore.bad_payload :: a stored subagent record could not be read at restore; it is skipped (warn) :: handle
`,
);

const WORKFLOWS = eventSection(
  'Workflows',
  `
workflow.loaded / workflow.stored.invalid :: a workflow definition was loaded at start / a stored definition no longer loads (warn; skipped) :: \`name, hash, steps, starts\` / \`name, error\`
workflow.defined / workflow.deleted :: a workflow was created or updated / deleted at runtime :: name, hash?, op?, version
start.unknown_workflow / start.once.skipped :: a start named no workflow / a \`once\` start already ran in an earlier life :: workflow, node?, run?
run.start / run.done :: a run started / ended :: \`run, workflow, node, start_key\` / \`run, workflow, status, err, output?\` (output with \`observability.log_content\`)
run.dropped / run.inputs.invalid :: a start was refused: concurrency \`drop\` (\`reason: concurrency\`), or its workflow already holds 100 queued starts (\`queue\`, \`reason: queue_full\`) / its inputs failed the schema (\`reason\` = the error) :: workflow, reason, error, start_key
run.deadline / run.stalled :: a run failed its deadline / stopped with no ready step and no finish reached :: run, error
run.save.fail :: a run's state could not be stored (warn; the next step tries again) :: run, error
step.start / step.done :: a step started / ended :: run, step, kind, attempt, status?
step.retry / step.goto :: a failed step is tried again / its \`on_error\` goes to another step :: \`run, step, attempt, backoff_ms\` / \`run, from, to\`
step.cache_hit :: a step with \`cache\` found a live cached output under its key and is done with it (its kind did not run) :: run, step, key
step.output.artifact :: a step output larger than \`limits.inline_max_bytes\` was kept as an artifact; the run record holds \`{$artifact, size}\` and later steps read the value back :: run, step, artifact, size
step.instance :: a nested step (\`foreach\`, \`batch\`, \`iterate\`, \`parallel\`, \`race\`, \`subgraph\`) opened one instance of its body; its steps run as \`<instance>.<step>\` :: \`run, step, instance\`
wait.armed / wait.resolved :: a step suspended (a \`wait\` step, \`sleep\`, a retry backoff), saved / a \`wait\` step's wait ended (what it waited for came, or its time) :: \`run, step, on, due_ms\` / \`run, step, on, status\`
a2a.send / a2a.delegate :: an \`a2a.send\` / \`a2a.delegate\` step's message reached its peer (info: the peer's task and its state; for delegate, the state it ended in) or failed (warn) :: run, step, peer, message_id, task?, state?, error?
audit.emit :: an \`emit\` step's \`audit\` value :: run, step, audit
restore.runs :: unfinished runs were found at start and resumed :: runs
restore.timer.repaired :: at start, a timer that should have been stored was not (its row deleted between lives): a run's timed wait (\`wait\`: sleep, retry_backoff, deadline) is armed again at its stored due time; a schedule is armed again from now (occurrences missed meanwhile are not caught up) (warn) :: run?, workflow?, step?, wait, due_ms?, trigger?, next_ms?
restore.child.cancelled :: at start, a live child run its parent no longer wants was cancelled (warn): a cascading sync child whose parent step stopped waiting on it (a lost \`race\` branch) or whose parent run ended, or any cascading child of a cancelled parent — the cancel the last life made in memory was lost with it :: run, parent, step, reason
restore.step.replay / restore.step.skipped / restore.step.failed :: at restore, a step that was running is run again / ended as skipped / failed (by its kind's replay rule) :: run, step, kind
`,
);

const TRIGGERS = eventSection(
  'Timers, schedules, webhooks and start nodes',
  `
timer.armed / timer.cancelled / timer.fired :: a durable timer was stored / its owner ended (debug) / it fired and was settled :: \`id, owner, kind, due, late_ms?\` / \`owner, timers\`
timer.dropped / timer.unknown_owner / timer.fire.fail / timer.cancel.fail :: a previous life's turn timer at start / a timer no handler knows (deleted) / a handler failed (tried again in 5 s; the row stays) / deleting an owner's timers failed :: id, owner, kind, reason?, err?
timer.arm.fail :: storing a workflow run's next-look timer failed (the run record keeps its due times; a restart re-arms it) :: owner, err
start.fired :: a trigger fired (an \`event\` start: \`on\` the lifecycle event, with the \`run\` or the turn's \`inbox_event\`) :: trigger, kind, on?, run?, inbox_event?, …
start.a2a.fired :: an A2A message started a workflow run through an \`a2a\` start (its task follows the run; \`queued: true\` when a start queued behind concurrency began later) :: workflow, node, run, conversation, command?, role?, task, queued?
start.a2a.queued :: an A2A message's run waits behind the workflow's concurrency; its task stays working until the run starts and ends :: workflow, node, conversation, task
start.queued :: a firing's run waits: behind its node's live run (a schedule's overlap \`queue\`) or behind the workflow's \`concurrency\`; it starts once a run ends :: workflow, node, start_key
start.withdrawn :: a start queued behind its workflow's concurrency was taken out of the queue before it ran (its A2A caller canceled the task) :: start_key, reason
start.keys_pruned / start.keys_prune.fail :: finished runs of recurring triggers older than 7 days were deleted with their exactly-once keys (a loop's newest run stays), and the done keys of one-shot schedules older than 7 days forgotten / (warn) that pass failed (tried again within the hour) :: removed, done_keys / err
start.subscribe.armed / start.subscribe.fail / start.subscribe.no_server :: a \`subscribe\` start subscribed to its MCP resource (\`resubscribed: true\` after a lost connection) / (warn) the server refused or offers no subscriptions / (warn) its server is not configured or not reachable :: workflow, node, server, uri, resubscribed?, err?
start.subscribe.lost / start.subscribe.retry :: (warn) the connection a \`subscribe\` start subscribed on was lost (the server went away or restarted); it subscribes again, waiting 0.5 s doubling to 30 s / (debug) a resubscribe, or an arming whose server was unreachable (\`no_server\`, or \`fail\` without the server's answer), failed and is tried again :: workflow, node, server, uri, reason? / err, in_ms
start.subscribe.held / start.subscribe.delivered / start.subscribe.dropped :: a firing held by \`coalesce\` behind the node's live run (it fires once that run ends) / a \`deliver: signal\` firing held by the workflow's live runs / a \`deliver: signal\` firing dropped (\`on_no_listener: drop\`, no live run) :: trigger, runs?, reason?
start.subscribe.store_fail :: (error) a \`subscribe\` start's window, held firing or ring could not be stored :: trigger, err
a2a.task.follow_fail :: (error) the task of an \`a2a\` start's run could not be ended with the run :: task, run, err
start.schedule.armed / start.schedule.done / start.schedule.invalid / start.schedule.missed / start.schedule.skipped :: a schedule armed (\`restored: true\` when its stored occurrence was kept) / an \`at\` consumed (\`expired: true\`: more than 7 days past, never caught up) / a bad schedule / catch_up at a late firing / an overlap \`skip\` :: trigger, scheduled_for?, next_ms?, fired?, skipped?, catch_up?, expired?, errors?
webhook.delivery / webhook.denied / webhook.duplicate / webhook.overflow :: a webhook request was answered / its auth failed / its key was seen / it was over \`parallelism\` :: trigger, path, outcome, on_overflow?
webhook.keys_pruned :: webhook idempotency keys older than 7 days were forgotten :: removed
start.shed :: (warn) a trigger's firing was shed under pressure (a webhook answers 429) :: trigger, kind, cause
message.wait.taken :: a new A2A message (or a \`message.send\` / \`message\` step delivery) was taken by \`wait on: message\` / \`a2a.wait\` steps waiting for its conversation (the sender's task completes, or its tool gets its receipt; no turn) :: principal, conversation, steps, task?, from?
wait.delivery.refused :: a message or webhook delivery for a waiting step was not held: the step holds one already (\`taken\`) or no longer waits (\`not_waiting\`); a message goes on to a turn :: run, channel, reason
webhook.await.armed / webhook.callback :: a \`wait on: webhook\` step's one-off callback route opened (again after a restart) / a hit on it was held for the step (answered 200 \`{status: resumed}\`) :: run, path, url? / run, path
signal.buffered / signal.dropped :: a signal sent to a run with no waiter was held / (warn) the oldest held signal was dropped past the bound (64) :: \`run, signal, held\` / \`run, signal\`
lifecycle.idle_exit :: a job-shaped process exits once idle (its once runs and prompt ended) :: code, job_shape
start.arm.fail / start.refused :: a start node could not be armed (error) / a firing's run was refused :: workflow, node, reason?, err?
start.loop.stopped :: a \`loop\` start stopped: \`until\` held, \`max_iterations\` reached, or its run was refused :: workflow, node, reason, error?
`,
);

/** The producers' sections of the event reference, in page order. */
export const PRODUCER_EVENT_SECTIONS: readonly EventSection[] = [STEERING, A2A, SUBAGENTS, WORKFLOWS, TRIGGERS];
