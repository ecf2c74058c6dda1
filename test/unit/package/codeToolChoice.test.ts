// createAgent's `tools` with a tools module: `[]` (or no list) offers every tool the module exports — an empty list
// never hides the module's tools — a list offers that subset, and a tool the module lacks is a usage error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveCodeTools } from '../../../src/agentTools.js';
import { DaemonError } from '../../../src/errors.js';
import { lookupOrder, slowTool } from '../../fixtures/definedTools.js';

const MODULE = new URL('../../fixtures/definedTools.js', import.meta.url);
const names = (chosen: Awaited<ReturnType<typeof resolveCodeTools>>) => chosen?.defs.map((d) => d.name).sort();

describe('resolveCodeTools', () => {
  it('an empty list with a module offers all of the module tools, as no list does', async () => {
    const all = names(await resolveCodeTools({ toolsModule: MODULE }));
    assert.ok(all && all.length >= 2, 'the fixture exports several tools');
    assert.deepEqual(names(await resolveCodeTools({ tools: [], toolsModule: MODULE })), all);
    // The premise: a list is a subset, so the empty list read as one would offer nothing.
    assert.deepEqual(names(await resolveCodeTools({ tools: [slowTool], toolsModule: MODULE })), ['slow']);
  });

  it('without a module an empty list is no code tools, and a list is a usage error', async () => {
    assert.equal(await resolveCodeTools({ tools: [] }), undefined);
    await assert.rejects(resolveCodeTools({ tools: [lookupOrder] }), (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, 'usage_invalid');
      assert.match(err.message, /`tools` need `toolsModule`/);
      return true;
    });
  });

  it('refuses a tool the module does not export, naming it', async () => {
    const stranger = { ...lookupOrder, name: 'stranger' };
    await assert.rejects(
      resolveCodeTools({ tools: [stranger], toolsModule: MODULE }),
      /tool "stranger" is not exported/,
    );
  });

  it('passes the module on as an importable URL', async () => {
    const chosen = await resolveCodeTools({ toolsModule: MODULE });
    assert.equal(chosen?.module, MODULE.href);
  });
});
