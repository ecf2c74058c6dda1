// Every relative link and anchor in README.md, CONTRIBUTING.md and docs/**/*.md resolves: the file exists and, for
// `#anchor`, the target page has a heading with that GitHub slug. Text in code blocks and code spans is not a link.
// And CONTRIBUTING.md's architecture map names every folder of src/.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// dist/test/unit/docs → the repository root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

function* markdownFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* markdownFiles(path);
    else if (name.endsWith('.md')) yield path;
  }
}

/** The page's prose: fenced blocks dropped, code spans blanked. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(text.replace(/`([^`\n]*)`/g, '$1')).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = (heading ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** `file: target — why` for each relative link of `file` that does not resolve. */
function brokenLinks(file: string, read: (path: string) => string | null): string[] {
  const text = read(file) ?? '';
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (target === undefined || /^[a-z]+:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    const where = `${relative(root, file)}: ${target}`;
    const page = read(resolved);
    if (page === null && !existsSync(resolved)) broken.push(`${where} — no such file`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(page ?? '').has(anchor))
      broken.push(`${where} — no heading #${anchor}`);
  }
  return broken;
}

const readPage = (path: string): string | null => {
  try {
    return statSync(path).isFile() ? readFileSync(path, 'utf8') : null;
  } catch {
    return null;
  }
};

describe('documentation links', () => {
  it('every relative link and anchor in README.md, CONTRIBUTING.md and docs/ resolves', () => {
    const files = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...markdownFiles(join(root, 'docs'))];
    assert.ok(files.length > 20, 'premise: the guide, concepts and reference pages were found');
    assert.deepEqual(
      files.flatMap((file) => brokenLinks(file, readPage)),
      [],
    );
  });

  it('reports a missing file and a missing anchor, and ignores links in code', () => {
    const pages: Record<string, string> = {
      [join(root, 'a.md')]: [
        '# Title',
        '## The `store.*` keys: what, why?',
        '[ok](b.md#second-part) [ok](#the-store-keys-what-why) [web](https://example.com/x)',
        '[gone](c.md) [bad anchor](b.md#nowhere) `[code](c.md)`',
        '```',
        '[fenced](c.md)',
        '```',
      ].join('\n'),
      [join(root, 'b.md')]: '# First\n\n## Second part\n',
    };
    const read = (path: string): string | null => pages[path] ?? null;
    assert.deepEqual(brokenLinks(join(root, 'a.md'), read), [
      'a.md: c.md — no such file',
      'a.md: b.md#nowhere — no heading #nowhere',
    ]);
  });
});

describe('CONTRIBUTING.md', () => {
  it('the architecture map names every folder of src/, and only those', () => {
    const text = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const map = text.slice(
      text.indexOf('## The architecture map'),
      text.indexOf('\n## ', text.indexOf('## The architecture map') + 1),
    );
    const rows = [...map.matchAll(/^\| `([a-z0-9]+)\/` \|/gm)].map((m) => m[1]);
    const folders = readdirSync(join(root, 'src')).filter((name) => statSync(join(root, 'src', name)).isDirectory());
    assert.ok(folders.includes('supervisor') && rows.length > 0, 'premise: both the folders and the rows were read');
    assert.deepEqual([...rows].sort(), [...folders].sort());
  });
});
