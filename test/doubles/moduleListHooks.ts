// The loader hook of moduleList.ts: appends each ES module's URL as it loads (the hooks run on their own thread).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

type Next = (url: string, context: unknown) => Promise<unknown>;

export async function load(url: string, context: unknown, next: Next): Promise<unknown> {
  const dir = process.env.AGENTD_TEST_MODULES;
  if (dir) appendFileSync(join(dir, `esm-${process.pid}.txt`), `${url}\n`);
  return next(url, context);
}
