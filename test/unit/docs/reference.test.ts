// docs/reference/{config,events,cli}.md are generated from the code (scripts/gen-reference.mjs): these fail when a
// page differs from what the code renders, so a config key, event, exit code or flag added without regenerating
// its page (or an event without a line in obs/eventDocs*.ts) fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseArgs } from '../../../src/cli/args.js';
import { CLIENT_COMMANDS } from '../../../src/cli/clientCommands.js';
import { renderCliReference } from '../../../src/cli/cliReference.js';
import { BUILTIN_FLAGS, CLIENT_SUBCOMMANDS, JOB_FLAGS, RELOAD_COMMAND } from '../../../src/cli/flagTable.js';
import { describeConfigKeys } from '../../../src/config/describe.js';
import { renderConfigReference } from '../../../src/config/keyReference.js';
import { EVENT_SECTIONS, renderEventReference, undocumentedEvents } from '../../../src/obs/eventReference.js';
import { EVENT_NAMES } from '../../../src/obs/events.js';
import { EXIT, EXIT_MEANINGS } from '../../../src/protocol/exitTable.js';

// dist/test/unit/docs → the repository root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const page = (name: string): string => readFileSync(join(root, 'docs', 'reference', name), 'utf8');
const REGENERATE = 'regenerate: npm run build && node scripts/gen-reference.mjs';

describe('docs/reference/config.md', () => {
  it(`is what the schema renders (${REGENERATE})`, () => {
    assert.equal(page('config.md'), renderConfigReference());
  });

  it('changes when a key is added, so a key without its entry fails the comparison above', () => {
    const keys = describeConfigKeys();
    const added = [...keys, { ...keys[0]!, path: 'agent.not_a_key', doc: 'a key nobody documented' }];
    const rendered = renderConfigReference(added);
    assert.notEqual(page('config.md'), rendered, 'premise: the page lacks the new key');
    assert.match(rendered, /`agent\.not_a_key`/);
  });

  it('lists every key with its env variable and flag', () => {
    const text = page('config.md');
    for (const key of describeConfigKeys()) {
      assert.ok(text.includes(`\`${key.path}\``), key.path);
      if (key.env) assert.ok(text.includes(`\`${key.env}\``), key.env);
    }
    assert.ok(text.includes('`--state-dir`'), 'a flag is named as typed');
  });
});

describe('docs/reference/events.md', () => {
  it(`is what the declared events render (${REGENERATE})`, () => {
    assert.equal(page('events.md'), renderEventReference());
  });

  it('has a line for every declared event and none for an undeclared one', () => {
    assert.deepEqual(undocumentedEvents(), { missing: [], unknown: [] });
  });

  it('changes when an event is declared, and reports it undocumented until it has a line', () => {
    const names = [...EVENT_NAMES, 'brand.new'];
    assert.deepEqual(undocumentedEvents(names).missing, ['brand.new']);
    const rendered = renderEventReference(names);
    assert.notEqual(page('events.md'), rendered, 'premise: the page lacks the new event');
    assert.match(rendered, /## Not yet documented\n\n- `brand\.new`/);
    const stale = [...EVENT_SECTIONS, { title: 'Gone', rows: [{ events: ['gone.event'], when: 'x', fields: 'y' }] }];
    assert.deepEqual(undocumentedEvents(EVENT_NAMES, stale as typeof EVENT_SECTIONS).unknown, ['gone.event']);
  });
});

describe('docs/reference/cli.md', () => {
  const tables = {
    jobFlags: [...JOB_FLAGS, ...BUILTIN_FLAGS],
    subcommands: [...CLIENT_SUBCOMMANDS, RELOAD_COMMAND],
    exitCodes: EXIT,
    exitMeanings: EXIT_MEANINGS,
  };

  it(`is what the flag and exit tables render (${REGENERATE})`, () => {
    assert.equal(page('cli.md'), renderCliReference());
    assert.equal(renderCliReference(tables), renderCliReference(), 'premise: the tables below are the defaults');
  });

  it('changes when a flag, a subcommand or an exit code is added', () => {
    const flag = { ...tables, jobFlags: [...tables.jobFlags, { flags: '--brand-new', doc: 'new' }] };
    const command = { ...tables, subcommands: [...tables.subcommands, { ...RELOAD_COMMAND, name: 'brandnew' }] };
    const code = {
      ...tables,
      exitCodes: { ...EXIT, brandNew: 9 },
      exitMeanings: { ...EXIT_MEANINGS, brandNew: 'new' },
    };
    for (const [what, changed, mark] of [
      ['flag', flag, '`--brand-new`'],
      ['subcommand', command, '`agentd brandnew`'],
      ['exit code', code, '| 9 | `brandNew` |'],
    ] as const) {
      const rendered = renderCliReference(changed);
      assert.notEqual(page('cli.md'), rendered, `premise: the page lacks the new ${what}`);
      assert.ok(rendered.includes(mark), what);
    }
  });

  it('documents what the parsers accept: every job flag is in --help, every subcommand dispatches', () => {
    const help = parseArgs(['node', 'agentd', '--help']);
    assert.ok('print' in help);
    for (const spec of JOB_FLAGS) assert.ok(help.print.includes(spec.flags), spec.flags);
    assert.deepEqual(
      [...CLIENT_COMMANDS],
      CLIENT_SUBCOMMANDS.map((c) => c.name),
    );
    const text = page('cli.md');
    for (const code of Object.values(EXIT)) assert.match(text, new RegExp(`^\\| ${code} \\|`, 'm'));
  });
});
