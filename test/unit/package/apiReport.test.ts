// The public API is pinned: the report generated from the emitted declarations must equal the committed one
// (api/agentd.api.md). A change to an exported name or signature fails here until the report is regenerated.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { apiReport } from './apiSurface.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..', '..');
const indexDts = join(repo, 'dist', 'src', 'index.d.ts');
const committed = join(repo, 'api', 'agentd.api.md');

describe('the API report', () => {
  const report = apiReport(indexDts);
  if (process.env.AGENTD_API_REPORT === 'write') writeFileSync(committed, report);

  it('matches the committed report (regenerate it when the change is deliberate)', () => {
    assert.ok(existsSync(committed), `${committed} is missing`);
    assert.equal(report, readFileSync(committed, 'utf8'));
  });

  it('exports the embedding API and nothing internal', () => {
    for (const name of ['createAgent', 'defineTool', 'RunHandle', 'RunEvent', 'DaemonError']) {
      assert.match(report, new RegExp(`\\b(function|const|class|interface|type) ${name}\\b`), name);
    }
    for (const internal of ['Supervisor', 'ToolSurface', 'startRuntime', 'runtimeOf', 'openStore']) {
      assert.doesNotMatch(report, new RegExp(`^(function|const|class|interface|type) ${internal}\\b`, 'm'), internal);
    }
    const agent = /^interface Agent \{\n([\s\S]*?)^\}/m.exec(report)?.[1] ?? '';
    assert.match(agent, /^ {2}run: /m);
    assert.doesNotMatch(agent, /supervisor/, 'Agent.supervisor is gone');
  });
});
