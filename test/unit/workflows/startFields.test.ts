// Schedule and webhook start nodes at load (producers reference §3.4, §3.7, §5 item 23): a bad cron, zone or
// route field is a load error naming workflow, node and field; a valid node becomes the trigger's own shape.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileConfig } from '../../../src/config/compile.js';
import { DaemonError } from '../../../src/errors.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { routeOf, scheduleOf } from '../../../src/workflows/startFields.js';

const doc = (start: Record<string, unknown>) => ({
  name: 'nightly',
  steps: { s: start, f: { kind: 'finish', depends_on: 's' } },
});

function errors(start: Record<string, unknown>): string[] {
  const got = loadWorkflow(doc(start));
  return got.ok ? [] : got.errors;
}

describe('schedule start nodes at load', () => {
  it('accepts cron with a zone, every and at', () => {
    assert.deepEqual(errors({ kind: 'schedule', cron: '0 2 * * *', tz: 'Europe/Paris', catch_up: 'none' }), []);
    assert.deepEqual(errors({ kind: 'schedule', every: '2s' }), []);
    assert.deepEqual(errors({ kind: 'schedule', at: '2026-03-29T02:30', tz: 'Europe/Paris' }), []);
  });

  it('names workflow, node and field for a bad cron, zone or policy', () => {
    assert.match(
      errors({ kind: 'schedule', cron: '61 * * * *' })[0] ?? '',
      /^workflow "nightly" step "s": cron: invalid cron expression "61 \* \* \* \*"/,
    );
    assert.deepEqual(errors({ kind: 'schedule', every: '1m', tz: 'Mars/Base' }), [
      'workflow "nightly" step "s": tz: unknown time zone "Mars/Base" (use an IANA name such as Europe/Paris)',
    ]);
    assert.deepEqual(errors({ kind: 'schedule', every: '1m', catch_up: 'some' }), [
      'workflow "nightly" step "s": catch_up: must be one of none, one, all',
    ]);
    assert.deepEqual(errors({ kind: 'schedule' }), [
      'workflow "nightly" step "s": schedule: set exactly one of every, at, cron',
    ]);
  });

  it('a bad cron in the config is config_invalid (exit 2) before anything starts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-startcfg-'));
    const file = join(dir, 'agentd.yaml');
    writeFileSync(
      file,
      'workflows:\n  - name: nightly\n    steps:\n      s: {kind: schedule, cron: "* * *"}\n      f: {kind: finish, depends_on: [s]}\n',
    );
    assert.throws(
      () => compileConfig({ files: [file], env: {}, flags: { model: 'm' }, cwd: dir, workflows: loadWorkflow }),
      (err: unknown) =>
        err instanceof DaemonError &&
        err.code === 'config_invalid' &&
        /workflow "nightly" step "s": cron: invalid cron expression/.test(err.message),
    );
  });

  it('scheduleOf keeps only the schedule fields', () => {
    assert.deepEqual(scheduleOf({ every: '2s', inputs: { a: 1 }, jitter: '100ms' }), { every: '2s', jitter: '100ms' });
  });
});

describe('webhook start nodes at load', () => {
  it('refuses a relative path, a bad auth, rate or overflow policy, naming each field', () => {
    assert.deepEqual(errors({ kind: 'webhook', path: 'hooks', auth: { basic: 'x' }, rate: 'lots', on_overflow: 'x' }), [
      'workflow "nightly" step "s": path: must be a string starting with /',
      'workflow "nightly" step "s": auth: must be one of {none: true}, {bearer}, {header: {name, equals}}, {hmac: {secret, header, prefix}}, {a2a: true}',
      'workflow "nightly" step "s": rate: must be <count>/<duration>, e.g. 10/1m',
      'workflow "nightly" step "s": on_overflow: must be reject, drop or queue',
    ]);
  });

  it('builds the route: id <workflow>.<node>, secrets resolved, rate, key field, filter over the payload', () => {
    const route = routeOf(
      'ci',
      'hook',
      {
        path: '/hooks/ci',
        auth: { hmac: { secret: '{{secret:K}}' } },
        rate: '5/1m',
        idempotency: { field: 'delivery.id' },
        filter: "CEL: payload.body.ref == 'main'",
      },
      (text) => text.replace('{{secret:K}}', 'k'),
    );
    assert.equal(route.id, 'ci.hook');
    assert.deepEqual(route.auth, { hmac: { secret: 'k' } });
    assert.deepEqual(route.rate, { burst: 5, per_ms: 60_000 });
    assert.deepEqual(route.idempotency, { field: 'delivery.id' });
    const payload = (ref: string) => ({ method: 'POST', path: '/hooks/ci', headers: {}, body: { ref }, raw_body: '' });
    assert.equal(route.filter?.(payload('main')), true);
    assert.equal(route.filter?.(payload('dev')), false);
  });
});
