// The public API is pinned: the report generated from the emitted declarations must equal the committed one
// (api/agentd.api.md). A change to an exported name or signature, or to a field of any package type an export
// reaches, fails here until the report is regenerated.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    const internals = [
      'Supervisor',
      'SupervisorPort',
      'ToolSurface',
      'startRuntime',
      'runtimeOf',
      'openStore',
      'Store',
    ];
    for (const internal of [...internals, 'Steering', 'ConversationBook', 'TurnFeed', 'WorkPortSlot', 'AcceptInput']) {
      assert.doesNotMatch(report, new RegExp(`^(function|const|class|interface|type) ${internal}\\b`, 'm'), internal);
    }
    const agent = /^interface Agent \{\n([\s\S]*?)^\}/m.exec(report)?.[1] ?? '';
    assert.match(agent, /^ {2}run: /m);
    assert.doesNotMatch(agent, /supervisor/, 'Agent.supervisor is gone');
  });

  it('pins the fields of a type an export reaches without exporting it', () => {
    // Premise: the exported block names `Inner` only, so a report of the exports alone is the same for both.
    const reportWith = (innerField: string): string => {
      const dir = mkdtempSync(join(tmpdir(), 'agentd-api-'));
      writeFileSync(join(dir, 'inner.d.ts'), `export interface Inner { ${innerField}; }\n`);
      const index = join(dir, 'index.d.ts');
      writeFileSync(index, "import type { Inner } from './inner.js';\nexport interface Outer { inner: Inner; }\n");
      return apiReport(index);
    };
    const before = reportWith('status: string');
    const after = reportWith("status: 'done' | 'failed'");
    const outer = (report: string) => /^interface Outer \{\n[\s\S]*?^\}/m.exec(report)?.[0];
    assert.equal(outer(before), 'interface Outer {\n  inner: Inner;\n}');
    assert.equal(outer(after), outer(before), 'the exported block alone does not show the change');
    assert.match(before, /^interface Inner \{\n {2}status: string;\n\}/m);
    assert.notEqual(after, before, 'the reached type is in the report, so the change is drift');
  });
});
