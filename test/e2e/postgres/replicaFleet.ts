// Replicas of the built agentd over one test database (issue 19): the config every replica shares, and a start.
import pg from 'pg';
import { type Daemon, startDaemon } from '../daemon.js';
import { tempStateDir } from '../harness.js';

/** The shared config: A2A on a free port, the postgres store (its URL a secret), `lease_ttl`, the model. */
export function replicaYaml(modelUrl: string, leaseTtl: string, extra: string[] = []): string {
  const store = ['store:', '  kind: postgres', '  url: "{{secret:PG_URL}}"', `  lease_ttl: ${leaseTtl}`];
  return [
    'a2a:',
    '  listen: http://127.0.0.1:0',
    ...store,
    'intelligence:',
    `  endpoints: ${modelUrl}`,
    ...extra,
    '',
  ].join('\n');
}

/** Starts `count` replicas on `url`, each in its own state directory, pushed to `into` as they start. */
export async function startReplicas(url: string, yaml: string, count: number, into: Daemon[]): Promise<Daemon[]> {
  const started: Daemon[] = [];
  for (let i = 0; i < count; i++) {
    const d = await startDaemon(tempStateDir(), yaml, { PG_URL: url });
    into.push(d);
    started.push(d);
  }
  return started;
}

/** The rows `sql` selects in the test database, on a connection of its own. */
export async function query(url: string, sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.end();
  }
}
