// http.sign inside real runs over a real SQLite store: a real local HTTP server verifies the HMAC of the body with
// the key it shares; the key comes from the environment through the config layer's `{{secret:…}}` resolver and is
// found nowhere in the events, the run record or the store file; a literal key is refused at load.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { settleWorkflowSecrets, workflowSecrets } from '../../../src/config/workflowSecrets.js';
import { loadWorkflow } from '../../../src/workflows/definitions.js';
import { defs, openDesk, runToEnd, tempStoreDir } from './deskRig.js';

const KEY = 'hook-key-3f9c1d7e5a';
const tmp = tempStoreDir();
let server: Server;
let base = '';
const verdicts: string[] = [];

/** Verifies `X-Hub-Signature-256`-style headers as a receiving service does; answers 401 on a mismatch. */
function verify(header: string | undefined, body: string): boolean {
  const [algorithm, hex] = (header ?? '').split('=');
  if (!algorithm || !hex) return false;
  const want = createHmac(algorithm, KEY).update(body).digest();
  const got = Buffer.from(hex, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const header = req.headers[req.url === '/custom' ? 'x-sig' : 'x-signature-256'];
      const ok = verify(typeof header === 'string' ? header : undefined, body);
      verdicts.push(`${req.url} ${ok ? 'verified' : 'rejected'}`);
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ ok }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  tmp.remove();
});

const flow = (step: Record<string, unknown>) => ({
  name: 'w',
  steps: {
    s: { kind: 'manual' },
    h: { kind: 'http', depends_on: 's', allow_private: true, ...step },
    f: { kind: 'finish', depends_on: 'h', output: 'CEL: steps.h.output.json' },
  },
});

/** The config layer's resolver over an environment holding the key (as compileConfig binds it). */
function secretPort(env: Record<string, string>) {
  const bound = defs();
  settleWorkflowSecrets(bound, env);
  return workflowSecrets(bound);
}

function storeText(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(path.join(dir, f)).toString('latin1'))
    .join('\n');
}

describe('http.sign', () => {
  it('signs the exact body with the secret key; the server verifies it and the key is stored nowhere', async () => {
    const dir = `${tmp.dir}/signed`;
    const life = await openDesk(
      dir,
      [
        flow({
          url: `${base}/hook`,
          method: 'POST',
          json: { run: '{{run.id}}' },
          sign: { key: '{{secret:HOOK_KEY}}' },
        }),
      ],
      { ports: { secret: secretPort({ HOOK_KEY: KEY }) } },
    );
    verdicts.length = 0;
    const run = await runToEnd(life);
    const events = JSON.stringify(life.events);
    await life.close();
    assert.equal(run.status, 'completed', String(run.error));
    assert.deepEqual(run.output, { ok: true });
    assert.deepEqual(verdicts, ['/hook verified']);
    assert.ok(!events.includes(KEY), 'the key is in an event');
    assert.ok(!JSON.stringify(run).includes(KEY), 'the key is in the run record');
    assert.ok(!storeText(dir).includes(KEY), 'the key is in the store file');
  });

  it('names the header and the algorithm; a wrong key is rejected by the server', async () => {
    const life = await openDesk(
      `${tmp.dir}/custom`,
      [
        flow({
          url: `${base}/custom`,
          method: 'PUT',
          body: 'plain',
          sign: { key: '{{secret:K}}', header: 'X-Sig', algorithm: 'sha512' },
        }),
      ],
      { ports: { secret: secretPort({ K: KEY }) } },
    );
    verdicts.length = 0;
    const run = await runToEnd(life);
    await life.close();
    assert.equal(run.status, 'completed', String(run.error));
    const wrong = await openDesk(`${tmp.dir}/wrong`, [flow({ url: `${base}/hook`, sign: { key: '{{secret:K}}' } })], {
      ports: { secret: secretPort({ K: 'not-the-key' }) },
    });
    const refused = await runToEnd(wrong);
    await wrong.close();
    assert.equal(refused.error, 'step "h" failed: http status 401');
    assert.deepEqual(verdicts, ['/custom verified', '/hook rejected']);
  });

  it('fails naming an unset secret (never a value), and refuses a literal key at load', async () => {
    const life = await openDesk(`${tmp.dir}/unset`, [flow({ url: `${base}/hook`, sign: { key: '{{secret:GONE}}' } })], {
      ports: { secret: secretPort({}) },
    });
    const run = await runToEnd(life);
    await life.close();
    assert.equal(run.error, 'step "h" failed: http.sign: secret \'GONE\' is not set');
    const literal = loadWorkflow(flow({ url: base, sign: { key: KEY, algorithm: 'md5' } }));
    assert.deepEqual(literal.ok ? [] : literal.errors, [
      'workflow "w" step "h": http.sign.key must be one {{secret:NAME}} reference (a literal key would be stored)',
      'workflow "w" step "h": http.sign.algorithm must be one of sha256, sha512, sha1',
    ]);
    const unset = settleWorkflowSecrets(defs(flow({ url: base, sign: { key: '{{secret:NOPE}}' } })), {});
    assert.deepEqual(unset, ['workflow "w" step "h": sign: secret \'NOPE\' is not set']);
  });
});
